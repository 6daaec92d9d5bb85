#pragma once

#include <optional>
#include <string>

#include "coulomb/sim/simulation.h"
#include "coulomb/solvers/contact_ncp.h"

namespace coulomb {

// The last step's rigid Signorini–Coulomb NCP (ContactNcp of
// Simulation::last_contact_problem) written as an FCLIB global problem
// (FclibGlobalProblemOf, WriteFclibProblem) to `path`, titled with the scene's
// name and described by its step, time, δt and contact model. `ncp` keeps
// the NCP's storage from call to call (empty: built here). Throws
// std::invalid_argument before the first step, for a step without contacts,
// and for constraints FCLIB has no form for (a PD controller's soft law, a
// weld); std::runtime_error when the file cannot be written.
void WriteLastStepFclib(const Simulation& simulation, const std::string& path,
                        std::optional<ContactNcp>* ncp);

// `coulomb run --fclib-out DIR [--fclib-every N]`: after every N-th step
// (counted from t = 0) that has contacts, WriteLastStepFclib to
// DIR/SCENE-step000123.hdf5. `coulomb solve DIR` then solves them all with
// any of Coulomb's solvers, and Siconos reads them too. A step that cannot
// be written ends the export with one warning on stderr and the run goes on:
// the files written so far stay whole.
class FclibStepExport {
 public:
  // Creates `directory` if needed; throws std::runtime_error naming it when
  // it cannot.
  FclibStepExport(std::string directory, int every, std::string scene_name);

  // Call after each step of `simulation`.
  void AfterStep(const Simulation& simulation);
  int files_written() const { return files_written_; }

 private:
  std::string directory_;
  int every_ = 1;
  std::string scene_name_;  // the files' names
  std::optional<ContactNcp> ncp_;
  int files_written_ = 0;
  bool stopped_ = false;
};

}  // namespace coulomb
