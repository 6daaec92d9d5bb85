// The _coulomb extension: Coulomb's public C++ API (coulomb/coulomb.h) for
// the Python package `coulomb` (python/coulomb/__init__.py wraps it).
// Arrays cross as float64 numpy arrays (copies); names as str. Errors:
// std::invalid_argument → ValueError, SceneFileError → ValueError naming the
// key, unknown names → KeyError.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nanobind/eigen/dense.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "coulomb/coulomb.h"
#include "coulomb/viewer/live_viewer.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace coulomb {
namespace {

// A read-only numpy view of the Simulation's stacked q or v: their storage
// never moves (the number of dofs is fixed) and Step/SetState restack them,
// so a view taken once stays current; copying it is the cheapest state read.
using ReadOnlyVector = nb::ndarray<const double, nb::numpy, nb::ndim<1>>;

// A number in a repr: three significant digits, e.g. 3.14e-07.
std::string ShortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", x);
  return text;
}

ReadOnlyVector View(const Eigen::VectorXd& x) {
  return ReadOnlyVector(x.data(), {static_cast<size_t>(x.size())});
}

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A float64 numpy array (the type named in the stubs; results only).
inline bool IsNumpyArray(PyObject* object) { return PyObject_CheckBuffer(object) != 0; }
class NumpyArray : public nb::object {
  NB_OBJECT_DEFAULT(NumpyArray, object, "numpy.typing.NDArray[numpy.float64]",
                    IsNumpyArray)
};

// numpy.empty, looked up once (the module lives as long as the process).
PyObject* NumpyEmpty() {
  static PyObject* const empty =
      nb::object(nb::module_::import_("numpy").attr("empty")).release().ptr();
  return empty;
}

// An Eigen result copied into a new numpy array: numpy.empty(shape) filled
// through the buffer protocol. nanobind's export of an ndarray goes through
// numpy.asarray (about 0.35 µs a call, as long as the rest of a state read);
// this is one call of numpy.empty and a copy.
template <typename Matrix>
NumpyArray Owned(const Matrix& value) {
  nb::object shape;
  if constexpr (Matrix::IsVectorAtCompileTime) {
    shape = nb::int_(value.size());
  } else {
    shape = nb::make_tuple(value.rows(), value.cols());
  }
  PyObject* arguments[] = {nullptr, shape.ptr()};
  NumpyArray array = nb::steal<NumpyArray>(PyObject_Vectorcall(
      NumpyEmpty(), arguments + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr));
  if (!array.is_valid()) throw nb::python_error();
  Py_buffer buffer;
  if (PyObject_GetBuffer(array.ptr(), &buffer, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0)
    throw nb::python_error();
  // numpy's row-major storage: a vector's entries in order, a matrix row
  // after row.
  double* const data = static_cast<double*>(buffer.buf);
  if constexpr (Matrix::IsVectorAtCompileTime) {
    Eigen::Map<Eigen::VectorXd>(data, value.size()) = value;
  } else {
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        data, value.rows(), value.cols()) = value;
  }
  PyBuffer_Release(&buffer);
  return array;
}

// A Simulation method of one name (a robot's, a body's) whose Eigen result
// is handed over as Owned.
template <auto Method>
auto OwnedByName() {
  return [](const Simulation& s, const std::string& name) {
    return Owned((s.*Method)(name));
  };
}

// Overrides of a scene's settings, from the keyword arguments of the
// Python factories (None: the scene's own).
struct Overrides {
  std::optional<double> time_step, rel_tol, sigma, lookahead;
  std::optional<std::string> scheme, model, solver;
  std::optional<int> threads, max_iterations;
  std::optional<bool> closed_form;
};

Scene Override(Scene scene, const Overrides& overrides) {
  TimeStepperParameters& parameters = scene.parameters;
  if (overrides.time_step) parameters.time_step = *overrides.time_step;
  if (overrides.scheme) parameters.scheme = ParseEnum<Scheme>(*overrides.scheme);
  if (overrides.model)
    parameters.contact.model = ParseEnum<ContactModel>(*overrides.model);
  if (overrides.solver)
    parameters.solver.kind = ParseEnum<ContactSolverKind>(*overrides.solver);
  if (overrides.rel_tol) {
    parameters.solver.sap.rel_tolerance = *overrides.rel_tol;
    parameters.solver.ncp.tolerance = *overrides.rel_tol;
  }
  if (overrides.closed_form && !*overrides.closed_form) scene.system.UseGeneralForm();
  if (overrides.threads) parameters.solver.threads = *overrides.threads;
  if (overrides.max_iterations) {  // SAP's limit, an NCP solver's budget per step
    parameters.solver.sap.max_iterations = *overrides.max_iterations;
    parameters.solver.ncp.max_iterations = *overrides.max_iterations;
  }
  if (overrides.sigma) {
    if (!std::isfinite(*overrides.sigma) || !(*overrides.sigma > 0.0)) {
      std::ostringstream message;
      message << "sigma must be finite and positive (the tangential regularization σ "
                 "of SAP §V-B: a sticking contact creeps at a speed proportional to "
                 "it; default 1e-3), got "
              << *overrides.sigma;
      throw std::invalid_argument(message.str());
    }
    parameters.contact.sigma = *overrides.sigma;
  }
  if (overrides.lookahead) {
    if (!std::isfinite(*overrides.lookahead) || !(*overrides.lookahead >= 0.0)) {
      std::ostringstream message;
      message << "lookahead must be a finite time ≥ 0 [s] (how far ahead each body is "
                 "swept for speculative contacts; 0: contacts within the margin "
                 "only), got "
              << *overrides.lookahead;
      throw std::invalid_argument(message.str());
    }
    parameters.contact_lookahead = *overrides.lookahead;
  }
  ValidateContactSolverOptions(parameters.solver);
  return scene;
}

// A scene from its source: "file" (a path; option "keyframe" for an MJCF
// file run by itself), "builtin" (a name with options) or "text"
// (YAML/JSON text; `source` names it in errors).
Simulation Create(const std::string& kind, const std::string& source,
                  const std::map<std::string, std::string>& options,
                  const std::string& text, const Overrides& overrides) {
  if (kind == "file") {
    const auto keyframe = options.find("keyframe");
    return Simulation(
        Override(LoadSceneFile(source, keyframe == options.end() ? "" : keyframe->second),
                 overrides));
  }
  if (kind == "builtin") {
    return Simulation(Override(MakeBuiltinScene(source, options), overrides));
  }
  if (kind == "text") return Simulation(Override(LoadSceneText(text, source), overrides));
  throw std::invalid_argument("unknown scene source '" + kind + "'");
}

// The body named `name`, or KeyError.
BodyState BodyStateOrKeyError(const Simulation& simulation, const std::string& name) {
  try {
    return simulation.body_state(name);
  } catch (const std::invalid_argument& error) {
    throw nb::key_error(error.what());
  }
}

// A pose's rotation as the unit quaternion (w, x, y, z).
Eigen::Vector4d QuaternionWxyz(const Eigen::Isometry3d& pose) {
  const Eigen::Quaterniond rotation(pose.linear());
  return {rotation.w(), rotation.x(), rotation.y(), rotation.z()};
}

// One row per tree (body_names' order), `row` of its first body's state.
template <int kColumns, typename Row>
Eigen::Matrix<double, Eigen::Dynamic, kColumns, Eigen::RowMajor> EveryTreeRows(
    const Simulation& simulation, Row row) {
  Eigen::Matrix<double, Eigen::Dynamic, kColumns, Eigen::RowMajor> rows(
      simulation.num_trees(), kColumns);
  for (int t = 0; t < simulation.num_trees(); ++t)
    rows.row(t) = row(simulation.body_state(BodyIndex{t, 0})).transpose();
  return rows;
}

// The body a ray leaves out: none for "", else the body named `exclude`
// (KeyError when there is none).
BodyIndex ExcludedBody(const Simulation& simulation, const std::string& exclude) {
  if (exclude.empty()) return BodyIndex{};
  BodyStateOrKeyError(simulation, exclude);
  return simulation.FindBody(exclude);
}

// A pose as Python sees one: (position, quaternion w x y z), and back (the
// quaternion normalized by the caller).
nb::tuple PoseTuple(const Eigen::Isometry3d& X) {
  return nb::make_tuple(Owned(Eigen::Vector3d(X.translation())),
                        Owned(QuaternionWxyz(X)));
}
Eigen::Isometry3d Pose(const Eigen::Vector3d& position, const Eigen::Vector4d& wxyz) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = position;
  X.linear() = Eigen::Quaterniond(wxyz[0], wxyz[1], wxyz[2], wxyz[3]).toRotationMatrix();
  return X;
}

nb::dict ContactsDict(const Simulation& simulation) {
  const std::vector<Contact> contacts = simulation.contacts();
  const Eigen::Index n = static_cast<Eigen::Index>(contacts.size());
  RowMatrix point(n, 3), normal(n, 3), impulse(n, 3);
  Eigen::VectorXd depth(n);
  std::vector<std::string> body_a, body_b;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Contact& c = contacts[i];
    point.row(i) = c.point.transpose();
    normal.row(i) = c.normal.transpose();
    impulse.row(i) = c.impulse.transpose();
    depth(i) = c.depth;
    body_a.push_back(c.body_a);
    body_b.push_back(c.body_b);
  }
  nb::dict result;
  result["body_a"] = body_a;
  result["body_b"] = body_b;
  result["point"] = Owned(point);
  result["normal"] = Owned(normal);
  result["depth"] = Owned(depth);
  result["impulse"] = Owned(impulse);
  return result;
}

// The run summary as the JSON text of `coulomb run --json` (the Python
// package parses it: one definition of the keys).
std::string SummaryJson(const Scene& scene, const SimulationSummary& summary) {
  return RunSummaryJson(scene, summary).str();
}

// Rows [first, end) of a recorded quantity as a T × n array; n is
// `columns_if_empty` when nothing was recorded (a 0 × n array).
RowMatrix Rows(const SampleRows& samples, size_t first,
               Eigen::Index columns_if_empty = 0) {
  const Eigen::Index rows = static_cast<Eigen::Index>(samples.size() - first);
  if (samples.empty()) return RowMatrix(0, columns_if_empty);
  const Eigen::Index width = samples.width();
  return Eigen::Map<const RowMatrix>(samples.data() + first * width, rows, width);
}

// The columns of a tree's stacked sensor readings.
Eigen::Index SensorColumns(const std::vector<RecordedSensor>& sensors) {
  Eigen::Index columns = 0;
  for (const RecordedSensor& sensor : sensors) columns += sensor.dimension;
  return columns;
}

// The recorded trajectory from sample `first` on: time, q, v, per tree the
// 13 columns of Trajectory::body_samples, and per tree with sensors each
// sensor's columns of Trajectory::sensor_samples by name.
nb::dict TrajectoryDict(const Simulation& simulation, size_t first) {
  const Trajectory& t = simulation.trajectory();
  if (first > t.time.size()) throw std::invalid_argument("no such trajectory sample");
  nb::dict result;
  result["time"] = Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(
      t.time.data() + first, static_cast<Eigen::Index>(t.time.size() - first)));
  result["q"] = Rows(t.q, first);
  result["v"] = Rows(t.v, first);
  nb::dict bodies;
  for (size_t b = 0; b < t.body_names.size(); ++b) {
    bodies[nb::str(t.body_names[b].c_str())] = Rows(t.body_samples[b], first, 13);
  }
  result["bodies"] = bodies;
  nb::dict sensors;
  const MultibodySystem& system = simulation.scene().system;
  for (int tree = 0; tree < system.num_trees(); ++tree) {
    const std::vector<RecordedSensor>& tree_sensors = t.sensors[tree];
    if (tree_sensors.empty()) continue;
    const RowMatrix rows =
        Rows(t.sensor_samples[tree], first, SensorColumns(tree_sensors));
    nb::dict by_name;
    Eigen::Index column = 0;
    for (const RecordedSensor& sensor : tree_sensors) {
      by_name[nb::str(sensor.name.c_str())] =
          RowMatrix(rows.middleCols(column, sensor.dimension));
      column += sensor.dimension;
    }
    sensors[nb::str(system.tree(tree).name.c_str())] = by_name;
  }
  result["sensors"] = sensors;
  return result;
}

// trajectory.h5 of the samples from `first` on.
void SaveTrajectory(const Simulation& simulation, size_t first, const std::string& path) {
  const Trajectory part = SamplesFrom(simulation.trajectory(), first);
  WriteTrajectory(path, part);
}

// One FCLIB solve as Python sees it: the fields of `coulomb solve --json`.
struct SolveResult {
  bool converged = false;
  std::string solver, status, kind, w_factor;
  int iterations = 0, inner_iterations = 0, line_search_iterations = 0, num_islands = 0;
  int skew_passes = 1, num_dofs = 0, num_contacts = 0, fallback_iterations = 0;
  double ncp_residual = 0.0, momentum_error = 0.0, complementarity_error = 0.0;
  double clique_iterations = 0.0, w_model_error = 0.0;
  double wall_time_s = 0.0, factorization_time_s = 0.0;
  Eigen::VectorXd r, u, v;
};

SolveResult ToSolveResult(const FclibProblem& fclib, FclibRun run) {
  const ContactSolverStatistics& s = run.statistics;
  const bool local = fclib.kind == FclibProblem::Kind::kLocal;
  SolveResult result;
  result.converged = s.converged();
  result.solver = ToString(s.solver);
  result.status = ToString(s.status);
  result.kind = local ? "local" : "global";
  result.w_factor = run.w_factor;
  result.iterations = s.iterations;
  result.inner_iterations = s.inner_iterations;
  result.line_search_iterations = s.line_search_iterations;
  result.num_islands = s.num_islands;
  result.skew_passes = run.skew_passes;
  result.fallback_iterations = s.fallback_iterations;
  result.num_dofs = run.num_dofs;
  result.num_contacts = fclib.num_contacts;
  result.ncp_residual = run.residual.error;
  result.momentum_error = s.momentum_error;
  result.complementarity_error = s.complementarity_error;
  result.clique_iterations = s.clique_iterations;
  result.w_model_error = local ? run.w_model_error : 0.0;
  result.wall_time_s = s.total_time_s;
  result.factorization_time_s = s.factorization_time_s;
  result.r = std::move(run.r);
  result.u = std::move(run.u);
  result.v = std::move(run.v);
  return result;
}

SolveResult SolveFclibFile(const std::filesystem::path& path, const std::string& solver,
                           std::optional<double> rel_tol,
                           std::optional<int> max_iterations, int threads,
                           const std::string& canal_inner, const std::string& delassus,
                           int fallback_iterations) {
  ContactSolverOptions options;
  options.kind = ParseEnum<ContactSolverKind>(solver);
  options.threads = threads;
  options.ncp.inner_solver = ParseEnum<CanalInnerSolver>(canal_inner);
  options.ncp.delassus = ParseEnum<DelassusForm>(delassus);
  options.ncp.fallback_iterations = fallback_iterations;
  if (rel_tol) options.sap.rel_tolerance = options.ncp.tolerance = *rel_tol;
  if (max_iterations)
    options.sap.max_iterations = options.ncp.max_iterations = *max_iterations;
  ValidateContactSolverOptions(options);
  const FclibProblem fclib = ReadFclibProblem(path.string());
  return ToSolveResult(
      fclib, SolveFclibProblem(fclib, BuildFclibContactProblem(fclib), options));
}

}  // namespace
}  // namespace coulomb

NB_MODULE(_coulomb, m) {
  using namespace coulomb;
  m.doc() = "Coulomb's C++ engine (the `coulomb` package wraps it).";
  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const SceneFileError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  nb::class_<Overrides>(m, "Overrides", "Settings that replace a scene's own.")
      .def(nb::init<>())
      .def_rw("time_step", &Overrides::time_step)
      .def_rw("rel_tol", &Overrides::rel_tol)
      .def_rw("sigma", &Overrides::sigma)
      .def_rw("lookahead", &Overrides::lookahead)
      .def_rw("scheme", &Overrides::scheme)
      .def_rw("model", &Overrides::model)
      .def_rw("solver", &Overrides::solver)
      .def_rw("threads", &Overrides::threads)
      .def_rw("max_iterations", &Overrides::max_iterations)
      .def_rw("closed_form", &Overrides::closed_form);

  nb::class_<StepStatistics>(
      m, "StepStats",
      "What one step reports: convergence, iterations, accuracy "
      "(SAP's e_m and e_μ, the NCP solvers' natural-map residual), "
      "contacts and penetration.")
      .def_ro("converged", &StepStatistics::converged)
      .def_ro("failure", &StepStatistics::failure, "why the step failed, if it did")
      .def_ro("iterations", &StepStatistics::iterations)
      .def_ro("line_search_iterations", &StepStatistics::line_search_iterations,
              "SAP: line-search evaluations (per Newton iteration, the island's "
              "that needed most)")
      .def_ro("islands", &StepStatistics::islands,
              "SAP: islands (cliques joined by constraints with an impulse)")
      .def_ro("working_set_rounds", &StepStatistics::working_set_rounds,
              "SAP: working-set sub-problems solved (0: the whole problem at once)")
      .def_ro("tree_iterations", &StepStatistics::tree_iterations,
              "SAP: the Newton iterations each tree (robot or free body) went "
              "through, averaged over the trees; `iterations` is the slowest "
              "island's")
      .def_ro("contact_solves", &StepStatistics::contact_solves,
              "contact problems solved in the step: 1, and one more each time a PD "
              "controller folded into the free motion crossed its effort limit (the "
              "iteration counts add over them)")
      .def_ro("momentum_error", &StepStatistics::momentum_error, "SAP's e_m")
      .def_ro("complementarity_error", &StepStatistics::complementarity_error,
              "SAP's e_μ")
      .def_ro("ncp_residual", &StepStatistics::ncp_residual,
              "natural-map residual (CANAL, SubADMM, PGS)")
      .def_ro("num_contacts", &StepStatistics::num_contacts)
      .def_ro("near_rigid_contacts", &StepStatistics::near_rigid_contacts,
              "contacts stiffer than the step resolves, made near-rigid")
      .def_ro("converged_at_roundoff", &StepStatistics::converged_at_roundoff,
              "SAP accepted the step at the round-off floor (e_m ≤ 100 ε_r)")
      .def_ro("ended_at_budget", &StepStatistics::ended_at_budget,
              "an NCP solver accepted the step at its iteration budget, above its "
              "tolerance (ncp_residual says how far)")
      .def_ro("symbolic_analysis", &StepStatistics::symbolic_analysis,
              "SAP redid its symbolic factorization: the cliques' coupling changed")
      .def_ro("max_penetration", &StepStatistics::max_penetration, "[m]")
      .def_ro("wall_time_s", &StepStatistics::wall_time_s)
      .def_ro("geometry_time_s", &StepStatistics::geometry_time_s,
              "collision queries [s]")
      .def_ro("assembly_time_s", &StepStatistics::assembly_time_s,
              "free motion and the contact problem's assembly [s]")
      .def_ro("solve_time_s", &StepStatistics::solve_time_s, "the contact solve [s]")
      .def("__repr__", [](const StepStatistics& s) {
        return "StepStats(converged=" + std::string(s.converged ? "True" : "False") +
               ", iterations=" + std::to_string(s.iterations) +
               ", momentum_error=" + ShortNumber(s.momentum_error) +
               ", ncp_residual=" + ShortNumber(s.ncp_residual) +
               ", num_contacts=" + std::to_string(s.num_contacts) +
               ", max_penetration=" + ShortNumber(s.max_penetration) +
               (s.failure.empty() ? "" : ", failure='" + s.failure + "'") + ")";
      });

  nb::class_<SimulationSnapshot>(
      m, "Snapshot",
      "A moment of a simulation to come back to (Simulation.snapshot, restore): the "
      "clock, the state, the actuation and the NCP solvers' warm start.")
      .def_ro("time", &SimulationSnapshot::time, "[s]")
      .def_prop_ro("q", &SimulationSnapshot::StackedPositions,
                   "The generalized positions (a copy), stacked as Simulation.q.")
      .def_prop_ro("v", &SimulationSnapshot::StackedVelocities,
                   "The generalized velocities (a copy), stacked as Simulation.v.")
      .def("__getstate__",
           [](const SimulationSnapshot& s) {
             const std::string bytes = EncodeSnapshot(s);
             return nb::bytes(bytes.data(), bytes.size());
           })
      .def("__setstate__",
           [](SimulationSnapshot& s, const nb::bytes& bytes) {
             new (&s) SimulationSnapshot(
                 DecodeSnapshot(std::string_view(bytes.c_str(), bytes.size())));
           })
      .def("__repr__", [](const SimulationSnapshot& s) {
        return "Snapshot(t = " + ShortNumber(s.time) + " s, " +
               std::to_string(s.trees.size()) + " trees, " +
               std::to_string(s.warm_start_contacts.size()) + " warm-start contacts)";
      });

  nb::class_<Simulation>(m, "Simulation",
                         "A scene and its time stepper (C++ Simulation).")
      .def_static("create", &Create, "kind"_a, "source"_a, "options"_a, "text"_a,
                  "overrides"_a)
      .def("step", &Simulation::Step, nb::call_guard<nb::gil_scoped_release>(),
           nb::rv_policy::copy)
      .def(
          "run",
          [](Simulation& simulation, double duration, LiveViewer* viewer) {
            SimulationSummary summary;
            {
              nb::gil_scoped_release release;
              summary = simulation.RunFor(duration, [&](double) {
                if (viewer) viewer->live().Update(simulation);
              });
            }
            return std::make_pair(SummaryJson(simulation.scene(), summary),
                                  simulation.RunWarnings(summary));
          },
          "duration"_a, "viewer"_a = nb::none(),
          "(the run's summary as JSON, its warnings: Simulation::RunWarnings)")
      .def("whole_summary",
           [](const Simulation& s) { return SummaryJson(s.scene(), s.Summary()); })
      .def_prop_ro("last_statistics", &Simulation::last_statistics, nb::rv_policy::copy)
      .def_prop_ro("time", &Simulation::time)
      .def_prop_ro("scene_name", [](const Simulation& s) { return s.scene().name; })
      .def("start_warnings", &Simulation::StartWarnings)
      .def_prop_ro("time_step", &Simulation::time_step)
      .def_prop_ro(
          "q_view", [](const Simulation& s) { return View(s.q()); },
          nb::rv_policy::reference_internal,
          "Read-only view of the stacked q, current after every step and set_state.")
      .def_prop_ro(
          "v_view", [](const Simulation& s) { return View(s.v()); },
          nb::rv_policy::reference_internal,
          "Read-only view of the stacked v, current after every step and set_state.")
      .def("set_state",
           [](Simulation& s, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
              std::optional<double> time) {
             if (time) Simulation::CheckTime(*time);
             s.SetState(q, v);
             if (time) s.set_time(*time);
           })
      .def("discard_recording", &Simulation::DiscardRecording)
      .def("snapshot", &Simulation::Snapshot)
      .def("restore", &Simulation::Restore, "snapshot"_a)
      .def_prop_ro("tree_names",
                   [](const Simulation& s) {
                     std::vector<std::string> names;
                     for (int t = 0; t < s.num_trees(); ++t)
                       names.push_back(s.tree_name(t));
                     return names;
                   })
      .def("body_position",
           [](const Simulation& s, const std::string& name) {
             return Owned(
                 Eigen::Vector3d(BodyStateOrKeyError(s, name).pose.translation()));
           })
      .def("body_orientation",
           [](const Simulation& s, const std::string& name) {
             return Owned(QuaternionWxyz(BodyStateOrKeyError(s, name).pose));
           })
      .def("body_velocity",
           [](const Simulation& s, const std::string& name) {
             const BodyState state = BodyStateOrKeyError(s, name);
             return nb::make_tuple(Owned(state.linear_velocity),
                                   Owned(state.angular_velocity));
           })
      .def("body_positions",
           [](const Simulation& s) {
             return Owned(EveryTreeRows<3>(s, [](const BodyState& state) {
               return Eigen::Vector3d(state.pose.translation());
             }));
           })
      .def("body_orientations",
           [](const Simulation& s) {
             return Owned(EveryTreeRows<4>(
                 s, [](const BodyState& state) { return QuaternionWxyz(state.pose); }));
           })
      .def("body_velocities",
           [](const Simulation& s) {
             return nb::make_tuple(
                 Owned(EveryTreeRows<3>(
                     s, [](const BodyState& state) { return state.linear_velocity; })),
                 Owned(EveryTreeRows<3>(
                     s, [](const BodyState& state) { return state.angular_velocity; })));
           })
      .def("contacts", &ContactsDict)
      .def(
          "export_fclib",
          [](const Simulation& s, const std::string& path) {
            std::optional<ContactNcp> ncp;
            WriteLastStepFclib(s, path, &ncp);
          },
          "path"_a)
      .def("joint_names", &Simulation::joint_names)
      .def("joint_positions", OwnedByName<&Simulation::JointPositions>())
      .def("joint_velocities", OwnedByName<&Simulation::JointVelocities>())
      .def("joint_efforts", OwnedByName<&Simulation::JointEfforts>())
      .def("tendon_names", &Simulation::tendon_names)
      .def("tendon_lengths", OwnedByName<&Simulation::TendonLengths>())
      .def("actuator_names", &Simulation::actuator_names)
      .def("set_actuator_controls",
           nb::overload_cast<const std::string&, const Eigen::VectorXd&>(
               &Simulation::SetActuatorControls))
      .def("set_actuator_controls_by_name",
           nb::overload_cast<const std::string&, const std::vector<std::string>&,
                             const Eigen::VectorXd&>(&Simulation::SetActuatorControls))
      .def("connection_names", &Simulation::connection_names)
      .def("connection_active", &Simulation::ConnectionActive)
      .def("set_connection_active", &Simulation::SetConnectionActive)
      .def("connection_frame",
           [](const Simulation& s, const std::string& tree, const std::string& name) {
             return PoseTuple(s.ConnectionFrame(tree, name));
           })
      .def("set_connection_frame",
           [](Simulation& s, const std::string& tree, const std::string& name,
              const Eigen::Vector3d& position, const Eigen::Vector4d& quaternion_wxyz) {
             s.SetConnectionFrame(tree, name, Pose(position, quaternion_wxyz));
           })
      .def("mocap_names", &Simulation::mocap_names)
      .def("mocap_pose",
           [](const Simulation& s, const std::string& name) {
             return PoseTuple(s.MocapPose(name));
           })
      .def("set_mocap_pose",
           [](Simulation& s, const std::string& name, const Eigen::Vector3d& position,
              const Eigen::Vector4d& quaternion_wxyz) {
             s.SetMocapPose(name, Pose(position, quaternion_wxyz));
           })
      .def("actuator_forces", OwnedByName<&Simulation::ActuatorForces>())
      .def("cast_ray",
           [](const Simulation& s, const Eigen::Vector3d& origin,
              const Eigen::Vector3d& direction, const std::string& exclude) {
             const BodyIndex body = ExcludedBody(s, exclude);
             return s.CastRay(origin, direction, body.tree, body.body);
           })
      .def("cast_rays",
           [](const Simulation& s, const Eigen::Vector3d& origin,
              const Eigen::Matrix<double, Eigen::Dynamic, 3>& directions,
              const std::string& exclude) {
             const BodyIndex body = ExcludedBody(s, exclude);
             return Owned(s.CastRays(origin, directions, body.tree, body.body));
           })
      .def("sensor_names", &Simulation::sensor_names)
      .def("sensor_readings",
           [](const Simulation& s, const std::string& name) {
             nb::list readings;
             for (Eigen::VectorXd& reading : s.SensorReadings(name))
               readings.append(Owned(std::move(reading)));
             return readings;
           })
      .def("velocity_range", &Simulation::VelocityRange)
      .def("position_range", &Simulation::PositionRange)
      .def("consecutive_joint_entries",
           [](const Simulation& s, const std::string& robot) {
             const Simulation::JointEntries entries = s.ConsecutiveJointEntries(robot);
             return std::make_tuple(entries.first_position, entries.first_velocity,
                                    entries.count);
           })
      .def("contact_wrench",
           [](const Simulation& s, const std::string& body) {
             BodyStateOrKeyError(s, body);  // an unknown name is a KeyError
             const Simulation::Wrench wrench = s.ContactWrench(body);
             return nb::make_tuple(Owned(wrench.force), Owned(wrench.torque));
           })
      .def("mass_matrix", OwnedByName<&Simulation::MassMatrix>())
      .def("bias_forces", OwnedByName<&Simulation::BiasForces>())
      .def(
          "point_jacobian",
          [](const Simulation& s, const std::string& body, const Eigen::Vector3d& point) {
            BodyStateOrKeyError(s, body);  // an unknown name is a KeyError
            return Owned(Eigen::MatrixXd(s.PointJacobian(body, point)));
          })
      .def("set_body_wrench",
           [](Simulation& s, const std::string& name, const Eigen::Vector3d& force,
              const Eigen::Vector3d& torque) {
             BodyStateOrKeyError(s, name);  // an unknown name is a KeyError
             s.SetBodyWrench(name, force, torque);
           })
      .def("set_joint_effort", &Simulation::SetJointEffort)
      .def("set_joint_efforts", &Simulation::SetJointEfforts)
      .def("set_pd_targets", &Simulation::SetJointPdTargets)
      .def("set_pd_target", &Simulation::SetJointPdTarget)
      .def("set_pd_gains", &Simulation::SetJointPdGains)
      .def("set_joint_friction", &Simulation::SetJointFriction)
      .def("joint_frictions", OwnedByName<&Simulation::JointFrictions>())
      .def_prop_rw("recording", &Simulation::recording, &Simulation::set_recording)
      .def_prop_ro("num_samples",
                   [](const Simulation& s) { return s.trajectory().time.size(); })
      .def("trajectory", &TrajectoryDict)
      .def("save_trajectory", &SaveTrajectory)
      .def(
          "save_run",
          [](const Simulation& s, const std::string& directory) {
            WriteRunOutput(directory, s, s.Summary());
          },
          "directory"_a);

  nb::class_<LiveViewer>(m, "LiveViewer",
                         "A simulation's viewer while it runs: its page, served on a "
                         "thread of its own, follows the steps it is updated with.")
      .def(
          "__init__",
          [](LiveViewer* viewer, const Simulation& simulation, const std::string& host,
             int port) {
            if (port < 0 || port > 65535)
              throw std::invalid_argument(
                  "port: expected 0 (any free port) to 65535, got " +
                  std::to_string(port));
            new (viewer) LiveViewer(simulation, ViewerServerOptions{host, port});
          },
          "simulation"_a, "host"_a, "port"_a, nb::keep_alive<1, 2>())
      .def_prop_ro("url", &LiveViewer::url)
      .def(
          "update",
          [](LiveViewer& viewer, const Simulation& s) { viewer.live().Update(s); },
          "simulation"_a)
      .def("close", &LiveViewer::Stop, nb::call_guard<nb::gil_scoped_release>());

  nb::class_<SolveResult>(
      m, "SolveResult",
      "One FCLIB problem solved, with the fields of `coulomb solve --json`: convergence, "
      "iterations (SAP: line searches, islands and Newton iterations per clique; the NCP "
      "solvers: inner iterations and refinement passes), accuracy (the FCLIB "
      "natural-map residual; SAP's e_m and e_μ), the mapping (kind, dofs, a local "
      "problem's factor of W and how far J Jᵀ is from W), times, and r, u (3 per "
      "contact, normal first) and v (global problems).")
      .def_ro("converged", &SolveResult::converged)
      .def_ro("solver", &SolveResult::solver)
      .def_ro("status", &SolveResult::status)
      .def_ro("kind", &SolveResult::kind, "'local' or 'global'")
      .def_ro("iterations", &SolveResult::iterations)
      .def_ro("inner_iterations", &SolveResult::inner_iterations,
              "CANAL: inner Newton iterations, summed")
      .def_ro("line_search_iterations", &SolveResult::line_search_iterations, "SAP")
      .def_ro("num_islands", &SolveResult::num_islands, "SAP")
      .def_ro("clique_iterations", &SolveResult::clique_iterations,
              "SAP: Newton iterations per clique (islands converge apart)")
      .def_ro("skew_passes", &SolveResult::skew_passes,
              "passes of the refinement on W − J Jᵀ (local problems, NCP solvers)")
      .def_ro("fallback_iterations", &SolveResult::fallback_iterations,
              "CANAL: iterations of the ADMM fallback (0: none ran)")
      .def_ro("num_dofs", &SolveResult::num_dofs, "of the mapped contact problem")
      .def_ro("num_contacts", &SolveResult::num_contacts)
      .def_ro("ncp_residual", &SolveResult::ncp_residual)
      .def_ro("momentum_error", &SolveResult::momentum_error, "SAP's e_m")
      .def_ro("complementarity_error", &SolveResult::complementarity_error, "SAP's e_μ")
      .def_ro("w_factor", &SolveResult::w_factor,
              "local problems: 'dense' or 'block-sparse' J with W = J Jᵀ; '' for global")
      .def_ro("w_model_error", &SolveResult::w_model_error,
              "local problems: max |W − J Jᵀ| / max |W|")
      .def_ro("wall_time_s", &SolveResult::wall_time_s)
      .def_ro("factorization_time_s", &SolveResult::factorization_time_s)
      .def_ro("r", &SolveResult::r)
      .def_ro("u", &SolveResult::u)
      .def_ro("v", &SolveResult::v)
      .def("__repr__", [](const SolveResult& r) {
        return "SolveResult(solver='" + r.solver +
               "', converged=" + std::string(r.converged ? "True" : "False") +
               ", iterations=" + std::to_string(r.iterations) +
               ", ncp_residual=" + ShortNumber(r.ncp_residual) +
               ", momentum_error=" + ShortNumber(r.momentum_error) +
               ", wall_time_s=" + ShortNumber(r.wall_time_s) + ")";
      });
  m.def("solve", &SolveFclibFile, "path"_a, "solver"_a = "sap", "rel_tol"_a = nb::none(),
        "max_iterations"_a = nb::none(), "threads"_a = 1, "canal_inner"_a = "newton",
        "delassus"_a = "auto", "fallback_iterations"_a = 0,
        nb::call_guard<nb::gil_scoped_release>(),
        "Solves one FCLIB problem file with SAP, CANAL, SubADMM (and its No Body / No "
        "Sub variants), PGS or the dual solvers. canal_inner: CANAL's inner solver "
        "(newton, or the AL paper's dogleg / ssn baselines); delassus: how the dual "
        "solvers apply W (auto, dense, operator); fallback_iterations: where CANAL "
        "ends unsolved, ADMM goes on from its best impulses for up to this many "
        "iterations (0: none).");
}
