#pragma once

// Coulomb's public C++ API, one header: build or load a scene, step it,
// read and set its state, read contacts, actuate joints.
//
//   #include <coulomb/coulomb.h>
//   coulomb::Simulation sim(coulomb::MakeBuiltinScene("clutter", {{"bodies", "8"}}));
//   sim.Step();
//
// CMake: find_package(Coulomb) and target_link_libraries(app Coulomb::coulomb).

#include "coulomb/contact/contact_problem.h"  // the contact problem
#include "coulomb/fclib/fclib_solve.h"        // FCLIB problems and their solve
#include "coulomb/io/fclib_step_export.h"     // a step's contact problem as FCLIB
#include "coulomb/io/run_output.h"            // trajectory.h5, stats.json
#include "coulomb/scenes/builtin_scenes.h"    // the papers' scenes
#include "coulomb/sim/scene_file.h"           // YAML scene files
#include "coulomb/sim/simulation.h"           // Simulation
#include "coulomb/solvers/contact_solver.h"   // ContactSolver and its factory
