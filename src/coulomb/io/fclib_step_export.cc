#include "coulomb/io/fclib_step_export.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "coulomb/fclib/fclib_writer.h"

namespace coulomb {
namespace {

long long StepNumber(const Simulation& simulation) {
  return std::llround(simulation.time() / simulation.time_step());
}

}  // namespace

void WriteLastStepFclib(const Simulation& simulation, const std::string& path,
                        std::optional<ContactNcp>* ncp) {
  const ContactProblem* problem = simulation.last_contact_problem();
  if (problem == nullptr) {
    throw std::invalid_argument(
        "no step yet: the FCLIB export writes the last step's "
        "contact problem");
  }
  if (problem->num_constraints() == 0)
    throw std::invalid_argument(
        "the last step has no contacts: FCLIB has no empty problem");
  if (*ncp) {
    (*ncp)->Rebuild(*problem);
  } else {
    ncp->emplace(*problem);
  }
  char description[256];
  std::snprintf(
      description, sizeof(description),
      "Coulomb, scene %s: step %lld (t = %.6g s, dt = %.6g s), contact model %s; "
      "the step's rigid Signorini-Coulomb NCP (docs/ncp_solvers.md)",
      simulation.scene().name.c_str(), StepNumber(simulation), simulation.time(),
      simulation.time_step(),
      ToString(simulation.scene().parameters.contact.model).c_str());
  WriteFclibProblem(FclibGlobalProblemOf(**ncp, simulation.scene().name, description),
                    path);
}

FclibStepExport::FclibStepExport(std::string directory, int every, std::string scene_name)
    : directory_(std::move(directory)),
      every_(every),
      scene_name_(std::move(scene_name)) {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error || !std::filesystem::is_directory(directory_)) {
    throw std::runtime_error("--fclib-out " + directory_ +
                             ": cannot create the directory (" +
                             (error ? error.message() : "a file is in the way") + ")");
  }
}

void FclibStepExport::AfterStep(const Simulation& simulation) {
  const long long step = StepNumber(simulation);
  const ContactProblem* problem = simulation.last_contact_problem();
  if (stopped_ || step % every_ != 0 || problem == nullptr ||
      problem->num_constraints() == 0) {
    return;
  }
  char name[64];
  std::snprintf(name, sizeof(name), "-step%06lld.hdf5", step);
  try {
    WriteLastStepFclib(
        simulation, (std::filesystem::path(directory_) / (scene_name_ + name)).string(),
        &ncp_);
    ++files_written_;
  } catch (const std::exception& error) {
    stopped_ = true;
    std::fprintf(stderr,
                 "coulomb run: warning: --fclib-out: step %lld: %s; no further steps are "
                 "written (%d written)\n",
                 step, error.what(), files_written_);
  }
}

}  // namespace coulomb
