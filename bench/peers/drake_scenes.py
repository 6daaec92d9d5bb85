"""Coulomb's clutter rebuilt in Drake and timed: run by run_peers.py under
Drake's own Python (pip `drake==1.58.0` has no wheel for Python 3.11, so
`make bench-peers` gives it a Python 3.12 venv of its own), one case per
process, the result printed as one JSON line.

The scene is clutter_layout.py's, body for body: the same shapes, masses,
poses, friction and δt as Coulomb's built-in scene, with the same
per-geometry contact parameters (point stiffness k = 1e12 N/m, SAP's
relaxation time τ_d = δt, μ = 1; Hunt & Crossley dissipation 10 s/m for
the Lagged and Similar models), combined into pairs by Drake's own rules.
Drake's discrete MultibodyPlant at δt = 10 ms with point contact: its SAP
solver (`--approximation sap`, its default parameters: relative tolerance
1e-6 on the same scaled momentum residual as Coulomb's ε_r, at most 100
Newton iterations), or the Lagged or Similar model of the irrotational
contact paper. Drake's point contact gives one point per pair of
geometries, so a box lying on a face would rock on a single point; as in
Drake's own clutter example, every box also carries eight small spheres
(r = 1 mm) in its corners, inside its hull and touching it.

Timed: `Simulator.AdvanceTo` one step at a time (geometry, contact
problem, solve, update). Not timed: after each step the penetration and
contact count are read on a separate context of the diagram (so that no
cache of the timed context is filled ahead of its next step).

    drake_python bench/peers/drake_scenes.py --bodies 40 --walls --duration 1
"""

import argparse
import json
import sys
import time

import numpy as np

from clutter_layout import (BOX_MASS, BOX_SIDE, CLUTTER_DT, FRICTION, SPHERE_DENSITY,
                            SPHERE_RADIUS, clutter_bodies, clutter_walls)
from pydrake.geometry import (AddContactMaterial, Box, HalfSpace, ProximityProperties,
                              Sphere)
from pydrake.math import RigidTransform, RotationMatrix
from pydrake.multibody.plant import (AddMultibodyPlant, CoulombFriction,
                                     MultibodyPlantConfig)
from pydrake.multibody.math import SpatialVelocity
from pydrake.multibody.tree import SpatialInertia
from pydrake.systems.analysis import Simulator
from pydrake.systems.framework import DiagramBuilder

CORNER_RADIUS = 1e-3


def contact_properties(stiffness, dissipation, friction, dt):
    properties = ProximityProperties()
    AddContactMaterial(dissipation=dissipation, point_stiffness=stiffness,
                       friction=CoulombFriction(friction, friction), properties=properties)
    properties.AddProperty("material", "relaxation_time", dt)
    return properties


def add_box_corners(plant, body, size, properties):
    """Eight spheres of CORNER_RADIUS in the corners of a box of `size`."""
    inset = 0.5 * np.asarray(size) - CORNER_RADIUS
    corners = np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).T.reshape(-1, 3)
    for index, signs in enumerate(corners):
        plant.RegisterCollisionGeometry(body, RigidTransform(inset * signs),
                                        Sphere(CORNER_RADIUS), f"{body.name()}_corner_{index}",
                                        properties)


def add_body(plant, name, inertia, shape, properties):
    body = plant.AddRigidBody(name, inertia)
    plant.RegisterCollisionGeometry(body, RigidTransform(), shape, name, properties)
    return body


def add_clutter(plant, args, properties):
    """The clutter: (body, pose, spatial velocity) of every object."""
    if args.walls:
        for index, (center, size) in enumerate(clutter_walls(args.columns)):
            plant.RegisterCollisionGeometry(plant.world_body(),
                                            RigidTransform(np.array(center, float)),
                                            Box(*size), f"wall_{index}", properties)
    bodies = []
    for name, kind, position, rotation in clutter_bodies(args.bodies, args.columns):
        if kind == "sphere":
            body = add_body(plant, name,
                            SpatialInertia.SolidSphereWithDensity(SPHERE_DENSITY, SPHERE_RADIUS),
                            Sphere(SPHERE_RADIUS), properties)
        else:
            body = add_body(plant, name,
                            SpatialInertia.SolidBoxWithMass(BOX_MASS, BOX_SIDE, BOX_SIDE, BOX_SIDE),
                            Box(BOX_SIDE, BOX_SIDE, BOX_SIDE), properties)
            add_box_corners(plant, body, BOX_SIDE * np.ones(3), properties)
        bodies.append((body, RigidTransform(RotationMatrix(rotation), np.array(position, float)),
                       np.zeros(6)))
    return bodies


def add_box_slide(plant, properties):
    """Coulomb's box_slide: a 1 kg box 0.2 × 0.2 × 0.1 m at 1 m/s, μ = 0.5."""
    size = np.array([0.2, 0.2, 0.1])
    body = add_body(plant, "box", SpatialInertia.SolidBoxWithMass(1.0, *size), Box(*size),
                    properties)
    add_box_corners(plant, body, size, properties)
    return [(body, RigidTransform([0, 0, 0.05]), np.array([0, 0, 0, 1.0, 0, 0]))]


def add_sphere_on_ground(plant, properties):
    """Coulomb's sphere_on_ground: a 1 kg ball, r = 0.1 m, from 0.5 m."""
    body = add_body(plant, "ball", SpatialInertia.SolidSphereWithMass(1.0, 0.1), Sphere(0.1),
                    properties)
    return [(body, RigidTransform([0, 0, 0.5]), np.zeros(6))]


SCENES = {  # name: (δt [s], μ, builder)
    "clutter": (CLUTTER_DT, FRICTION, add_clutter),
    "box_slide": (1e-3, 0.5, lambda plant, args, properties: add_box_slide(plant, properties)),
    "sphere_on_ground": (0.01, 1.0,
                         lambda plant, args, properties: add_sphere_on_ground(plant, properties)),
}


def build(args):
    dt, friction, add_scene = SCENES[args.scene]
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlant(
        MultibodyPlantConfig(time_step=dt, contact_model="point",
                             discrete_contact_approximation=args.approximation), builder)
    properties = contact_properties(args.stiffness, args.dissipation, friction, dt)
    plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform(), HalfSpace(), "ground",
                                    properties)
    bodies = add_scene(plant, args, properties)
    plant.Finalize()
    return plant, builder.Build(), bodies, dt


class Probe:
    """Deepest penetration and contact count at some positions, on a context
    of its own."""

    def __init__(self, plant, diagram):
        self.plant = plant
        self.context = plant.GetMyMutableContextFromRoot(diagram.CreateDefaultContext())

    def __call__(self, positions):
        self.plant.SetPositions(self.context, positions)
        query = self.plant.get_geometry_query_input_port().Eval(self.context)
        pairs = query.ComputePointPairPenetration()
        return max([p.depth for p in pairs] + [0.0]), len(pairs)


def energy(plant, context):
    return plant.CalcKineticEnergy(context) + plant.CalcPotentialEnergy(context)


def run(args):
    plant, diagram, bodies, dt = build(args)
    simulator = Simulator(diagram)
    context = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    for body, pose, velocity in bodies:
        plant.SetFreeBodyPose(context, body, pose)
        plant.SetFreeBodySpatialVelocity(context, body, SpatialVelocity(velocity))
    simulator.Initialize()
    probe = Probe(plant, diagram)
    result = dict(energy_initial=energy(plant, context), failed_at=None, error="")
    steps = round(args.duration / dt)
    elapsed, penetration, contacts, done = 0.0, 0.0, 0, 0
    for step in range(1, steps + 1):
        start = time.perf_counter()
        try:
            simulator.AdvanceTo(step * dt)
        except RuntimeError as failure:
            result.update(failed_at=(step - 1) * dt, error=str(failure).splitlines()[0])
            break
        elapsed += time.perf_counter() - start
        done = step
        depth, count = probe(plant.GetPositions(context))
        penetration, contacts = max(penetration, depth), max(contacts, count)
    result.update(ms=1e3 * elapsed / max(done, 1), steps=done, contacts=contacts,
                  penetration_max=penetration,
                  penetration_end=probe(plant.GetPositions(context))[0],
                  energy_final=energy(plant, context))
    if args.scene == "box_slide":  # where the box stopped (the only scene that asks)
        result["positions"] = {body.name(): plant.EvalBodyPoseInWorld(context, body)
                               .translation().tolist() for body, _, _ in bodies}
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scene", choices=sorted(SCENES), default="clutter")
    parser.add_argument("--bodies", type=int, default=40)
    parser.add_argument("--columns", type=int, default=4)
    parser.add_argument("--walls", action="store_true")
    parser.add_argument("--duration", type=float, required=True, help="simulated seconds")
    parser.add_argument("--approximation", choices=("sap", "lagged", "similar"), default="sap")
    parser.add_argument("--stiffness", type=float, default=1e12,
                        help="point stiffness per geometry [N/m]")
    parser.add_argument("--dissipation", type=float, default=10.0,
                        help="Hunt & Crossley dissipation per geometry [s/m] (Lagged, Similar)")
    args = parser.parse_args()
    if args.bodies < 1 or args.columns < 1 or args.duration <= 0:
        sys.exit("drake_scenes.py: --bodies and --columns must be ≥ 1, --duration > 0")
    print(json.dumps(run(args)))


if __name__ == "__main__":
    main()
