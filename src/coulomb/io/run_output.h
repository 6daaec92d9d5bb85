#pragma once

#include <functional>
#include <string>

#include "coulomb/io/json_writer.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {

// What `coulomb run --out DIR` writes, as library functions (the CLI, the
// Python package and the viewer use them):
//
// trajectory.h5: /time (T); /time_step (1: δt [s]); per tree's first body
// /bodies/NAME/position
//   (T × 3), orientation (T × 4, quaternion w, x, y, z), linear_velocity,
//   angular_velocity (T × 3, world frame); /q and /v (T × n_q, T × n_v);
//   what a viewer draws (README, "Trajectory format"): /geometry/shape (G
//   codes, named by /geometry/shape_names), size (G × 3: sphere r; box edge
//   lengths; capsule and cylinder r, length; ellipsoid semi-axes), body (G names), the
//   hulls of convex meshes (mesh_vertices V × 3, mesh_triangles, 3 vertex indices per
//   triangle counted from the geometry's first vertex, and per geometry their
//   offsets mesh_vertex_offsets, mesh_triangle_offsets, G + 1 each), poses (T
//   × 7G: x y z qw qx qy qz of each geometry in world); /contacts/offsets
//   (T + 1: sample s has contacts [offsets[s], offsets[s+1]), those of the
//   step that ended there), geometry_a, geometry_b (N), point, normal (A→B),
//   impulse (on B) (N × 3, world), depth (N, > 0 when overlapping).
// stats.json: the run summary (RunSummaryJson) and per_step: time,
//   converged, iterations, momentum_error, complementarity_error,
//   ncp_residual, contacts, penetration_max, energy, wall_time_s.
//
// Each file is written next to its destination and renamed into place when
// complete: a run stopped while writing leaves the previous file or none,
// never a truncated one. Failures throw std::runtime_error naming the file.
// (trajectory_writer.h writes the same file step by step; `records` fill /steps.)
void WriteTrajectory(const std::string& path, const Trajectory& trajectory,
                     const std::vector<StepRecord>& records = {});
// The geometry of a trajectory.h5 written by WriteTrajectory (convex
// meshes: vertices and triangles only). Throws std::runtime_error naming
// the file and dataset when something is missing or inconsistent.
class Hdf5File;
std::vector<RecordedGeometry> ReadTrajectoryGeometry(const Hdf5File& file);
// running: the run goes on (stats.json says "running": true).
void WriteRunStatistics(const std::string& path, const Scene& scene,
                        const SimulationSummary& summary,
                        const std::vector<StepRecord>& records, bool running = false);
// The same with the records visited one by one (for_each(visit) calls
// visit(record) for every step), streamed to the file.
using StepRecordSource =
    std::function<void(const std::function<void(const StepRecord&)>& visit)>;
void WriteRunStatistics(const std::string& path, const Scene& scene,
                        const SimulationSummary& summary,
                        const StepRecordSource& for_each, bool running = false);
// Both files into `directory` (created if missing).
void WriteRunOutput(const std::string& directory, const Simulation& simulation,
                    const SimulationSummary& summary);

// The summary of a run: scene, scheme, contact_model, solver, time_step,
// steps, sim_time, wall_time_s, realtime_factor, iterations_mean,
// iterations_max, momentum_error_max, ncp_residual_max, failed_steps,
// penetration_max, contacts_max, energy_initial, energy_final, failure.
JsonObjectWriter RunSummaryJson(const Scene& scene, const SimulationSummary& summary);
// The content of stats.json: the summary and per_step.
JsonObjectWriter RunStatisticsJson(const Scene& scene, const SimulationSummary& summary,
                                   const std::vector<StepRecord>& records);

}  // namespace coulomb
