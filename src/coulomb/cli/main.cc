// coulomb: the command-line front end. Each command lives in its own file;
// this one dispatches and turns errors into one-line messages and exit codes.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "coulomb/bench/bench_command.h"
#include "coulomb/bench/clutter_bench_command.h"
#include "coulomb/bench/irr_bench_command.h"
#include "coulomb/bench/ncp_bench_command.h"
#include "coulomb/bench/random_bench_command.h"
#include "coulomb/cli/arguments.h"
#include "coulomb/cli/run_command.h"
#include "coulomb/cli/solve_command.h"
#include "coulomb/cli/view_command.h"

namespace {

// Each command's usage, as `coulomb --help` lists them and `coulomb COMMAND
// --help` prints one.
struct CommandHelp {
  const char* name;
  const char* text;
};
constexpr CommandHelp kCommands[] = {
    {"solve",
     "  solve PROBLEM.hdf5 [--solver sap|canal|subadmm|subadmm-nobody|admm|pgs|\n"
     "        dual|dual-ccp] [--threads N]\n"
     "        [--rel-tol X] [--canal-inner newton|dogleg|ssn] [--fallback-iterations N]\n"
     "        [--delassus auto|dense|operator]\n"
     "        [--max-iterations N]\n"
     "        [--linear-solver dense|sparse] [--line-search exact|backtracking]\n"
     "        [--output SOLUTION.hdf5] [--json]\n"
     "                 solve one FCLIB problem (default solver: SAP);\n"
     "                 --fallback-iterations N: where CANAL ends unsolved, ADMM goes\n"
     "                 on from its best impulses for up to N iterations (0: none)\n"
     "  solve DIRECTORY [options]   solve every .hdf5 in DIRECTORY, print a table and\n"
     "                 its totals (a file that cannot be read gets its row; exit 2)\n"
     "  solve --example [options]   solve a built-in random problem\n"},
    {"run",
     "  run [SCENE.yaml | MODEL.xml | BUILTIN] [--dt S] [--duration S] [--scheme NAME] "
     "[--rel-tol "
     "X]\n"
     "      [--model sap|lagged|regularized_lagged|similar]\n"
     "      [--solver sap|canal|subadmm|subadmm-nobody|admm|pgs|dual|dual-ccp] "
     "[--threads N]\n"
     "      [--canal-inner newton|dogleg|ssn] [--cold-start] [--sigma X] [--lookahead "
     "S]\n"
     "      [--max-iterations N] [--keyframe NAME] [--set key=value]... [--out DIR] "
     "[--json]\n"
     "      [--general-form]\n"
     "      [--fclib-out DIR [--fclib-every N]]\n"
     "      [--view [--port P] [--host H]] [--realtime]\n"
     "  run --resume DIR [--json]\n"
     "                 simulate a scene file or a built-in scene (default: clutter);\n"
     "                 a MuJoCo MJCF file runs as the scene of its robot (its\n"
     "                 <worldbody> geoms, <option> time step and gravity), from\n"
     "                 its <key name=NAME> with --keyframe NAME;\n"
     "                 --out DIR writes trajectory.h5 and stats.json as the run goes\n"
     "                 (flushed every simulated second), --view serves the browser\n"
     "                 viewer on the run while it is computed, --realtime paces the\n"
     "                 run to the wall clock; --resume DIR continues an interrupted\n"
     "                 run from its last flush, with its own options; --sigma X sets\n"
     "                 SAP's tangential regularization σ (default 1e-3) of every\n"
     "                 contact: a sticking contact creeps in proportion to it;\n"
     "                 --rel-tol X is SAP's ε_r or an NCP solver's tolerance;\n"
     "                 --max-iterations N: SAP's Newton iterations before a step\n"
     "                 fails (default 1000), an NCP solver's budget per step, at\n"
     "                 which a step is accepted unsolved (CANAL 20, SubADMM and\n"
     "                 PGS 100, dual 1000; the run warns of such steps);\n"
     "                 --lookahead S sweeps each body S seconds ahead for speculative\n"
     "                 contacts (default δt + the largest SAP τ_d, where the contact\n"
     "                 models engage; 0: contacts within the margin only);\n"
     "                 --general-form steps free bodies (loose, or of welded\n"
     "                 bodies) through Pinocchio's CRBA and RNEA like robots, not\n"
     "                 in closed form: the same physics, to check one by the other;\n"
     "                 --fclib-out DIR writes every N-th step's contact problem (the\n"
     "                 rigid Signorini-Coulomb NCP, default N = 1) as an FCLIB file,\n"
     "                 DIR/SCENE-stepNNNNNN.hdf5, for coulomb solve DIR or Siconos;\n"
     "                 --threads N (1 to 256) runs the solver on N threads (SubADMM's\n"
     "                 trees; SAP's islands while they hold 1000 constraints or\n"
     "                 more), the trajectory the same for any N\n"},
    {"view",
     "  view DIR [--port P] [--host H] [--export FILE.html]\n"
     "                 play a run written by coulomb run --out DIR in the browser\n"
     "                 viewer (default http://127.0.0.1:8000/, --port 0: any free\n"
     "                 port), or write it as one self-contained HTML file\n"},
    {"scenes", "  scenes         list the built-in scenes\n"},
    {"bench",
     "  bench solve [--fclib-dir DIR] [--repetitions N] [--max-bodies N]\n"
     "                 time SAP solves, dense vs sparse Cholesky\n"
     "  bench clutter [--duration S] [--max-bodies N]\n"
     "                 SAP §VI-C scalability: 10…160 bodies, with and without walls\n"
     "  bench ncp [--case dish_pile|dish_pile_sdf|bolt_nut] [--cases N] [--threads N]\n"
     "            [--csv FILE]\n"
     "            [--penalty-scale X] [--penalty-growth K] [--ablation]\n"
     "                 AL §VII-A1 single-step test: CANAL, SubADMM, PGS on the dish\n"
     "                 pile (cylinders, or the paper's revolved SDF dishes) or the\n"
     "                 nut on the bolt (10 configurations); --ablation:\n"
     "                 AL §VII-D1, CANAL's inner solver (newton)\n"
     "                 against dogleg and damped semismooth Newton, 10 AL iterations\n"
     "  bench laikago [--threads N]\n"
     "                 AL §VII-D2: SubADMM vs No Body vs No Sub on 8 and 27 dropped "
     "quadrupeds\n"
     "  bench random [--count N] [--seed S]\n"
     "                 SAP and CANAL on random contact problems in five classes\n"
     "  bench irr [--case belt|sphere|rod|clutter|stiff|all] [--quick]\n"
     "                 IRR §IX studies: SAP vs Lagged vs Similar, convergence in δt\n"},
};
constexpr const char* kExitCodes =
    "exit codes: 0 success, 1 a solve or step did not converge, 2 bad input\n";

void PrintUsage(std::FILE* out) {
  std::fputs(
      "usage: coulomb <command> [options]   (coulomb <command> --help)\ncommands:\n",
      out);
  for (const CommandHelp& command : kCommands) std::fputs(command.text, out);
  std::fputs(kExitCodes, out);
}

// `coulomb COMMAND --help` (or -h anywhere after the command): true when
// printed.
bool PrintCommandHelp(const std::string& name,
                      const std::vector<std::string>& arguments) {
  if (std::find_if(arguments.begin(), arguments.end(), [](const std::string& a) {
        return a == "--help" || a == "-h";
      }) == arguments.end()) {
    return false;
  }
  for (const CommandHelp& command : kCommands) {
    if (name != command.name) continue;
    std::printf("usage:\n%s%s", command.text, kExitCodes);
    return true;
  }
  return false;
}

// `coulomb bench NAME [options]`: the benchmark named first.
int RunBench(const std::vector<std::string>& arguments) {
  using Command = int (*)(const std::vector<std::string>&);
  static const std::pair<const char*, Command> kBenchmarks[] = {
      {"clutter", coulomb::RunClutterBenchCommand},
      {"irr", coulomb::RunIrrBenchCommand},
      {"ncp", coulomb::RunNcpBenchCommand},
      {"random", coulomb::RunRandomBenchCommand},
      {"laikago", coulomb::RunLaikagoBenchCommand},
  };
  const std::string name = arguments.empty() ? "" : arguments.front();
  if (name == "solve") return coulomb::RunBenchCommand(arguments);
  for (const auto& [benchmark, run] : kBenchmarks) {
    if (name == benchmark) return run({arguments.begin() + 1, arguments.end()});
  }
  throw coulomb::UsageError(
      (name.empty() ? std::string("which benchmark?")
                    : "unknown benchmark '" + name + "':") +
      " solve, clutter, ncp, laikago, random or irr (coulomb bench --help)");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> arguments(argv + 1, argv + argc);
  if (arguments.empty() || arguments[0] == "--help" || arguments[0] == "-h" ||
      arguments[0] == "help") {
    PrintUsage(arguments.empty() ? stderr : stdout);
    return arguments.empty() ? 2 : 0;
  }
  const std::string command = arguments[0];
  arguments.erase(arguments.begin());
  if (PrintCommandHelp(command, arguments)) return 0;
  try {
    if (command == "solve") return coulomb::RunSolveCommand(arguments);
    if (command == "bench") return RunBench(arguments);
    if (command == "run") return coulomb::RunRunCommand(arguments);
    if (command == "view") return coulomb::RunViewCommand(arguments);
    if (command == "scenes") return coulomb::RunScenesCommand(arguments);
    throw coulomb::UsageError("unknown command '" + command + "' (try coulomb --help)");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "coulomb %s: %s\n", command.c_str(), error.what());
    return 2;
  }
}
