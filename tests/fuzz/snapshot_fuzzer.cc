// Fuzzes a snapshot's bytes, as an unpickled coulomb.Snapshot brings them:
// decoded (DecodeSnapshot), restored into a two-box pile solved by CANAL
// (Simulation::Restore checks the trees, the actuation and the warm start),
// then stepped twice. Accepted: steps (converged or not), or
// std::invalid_argument for bytes or content refused.
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"
#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  coulomb::Scene scene = coulomb::MakeBuiltinScene("clutter", {{"bodies", "2"}});
  scene.parameters.solver.kind = coulomb::ContactSolverKind::kCanal;
  coulomb::Simulation simulation(std::move(scene));
  simulation.set_recording(false);
  try {
    simulation.Restore(coulomb::DecodeSnapshot(
        std::string_view(reinterpret_cast<const char*>(data), size)));
    simulation.Step();
    simulation.Step();
  } catch (const std::invalid_argument&) {
  } catch (const std::exception& error) {
    coulomb::fuzz::FailOnUnexpected("snapshot", error);
  }
  return 0;
}
