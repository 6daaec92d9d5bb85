#pragma once

#include "coulomb/geometry/shape.h"

namespace coulomb {

// A bolt and a nut with ISO metric threads (iso_thread.h) as signed distance
// fields, their axes along z of G, centered on G's origin. Sizes in meters.
//
// Bolt: the threaded rod r ≤ R(s) cut to |z| ≤ length/2, its surface moved
// inward by `clearance` along the normal (φ = max(f_thread + clearance,
// |z| − length/2)), so that a nut of the same nominal size has play. A
// clearance of 0.1 mm is of the order of ISO 965's 6g/6H allowances for
// M48 (a fundamental deviation of 0.085 mm on the pitch diameter).
// Nut: a hexagonal prism (`width_across_flats`, flats facing ±x at θ = 0°,
// 60°, 120°; `height` along z) minus the threaded hole:
// φ = max(φ_prism, −f_thread), with φ_prism the max of its face planes.
// Right-handed: a nut turned by +θ about z advances by +P θ/(2π).
struct ThreadedBoltSize {
  double major_diameter = 0.048;  // d [m] (M48)
  double pitch = 0.005;           // P [m] (M48 coarse)
  double length = 0.08;           // [m]
  double clearance = 1e-4;        // [m] ≥ 0, less than a quarter of 5H/8
};
struct ThreadedNutSize {
  double major_diameter = 0.048;      // D [m], the bolt's nominal d
  double pitch = 0.005;               // P [m]
  double height = 0.038;              // m [m] (ISO 4032, M48)
  double width_across_flats = 0.075;  // s [m] (ISO 4032, M48)
};

// Their SDF shapes, with display surfaces of 72 facets per turn and rings
// P/12 apart (the surface samples are the surface's vertices). Throw
// std::invalid_argument naming the bad dimension (a thread of more than 300
// turns included: its surface would be millions of samples).
SdfShape MakeThreadedBolt(const ThreadedBoltSize& size);
SdfShape MakeThreadedNut(const ThreadedNutSize& size);

}  // namespace coulomb
