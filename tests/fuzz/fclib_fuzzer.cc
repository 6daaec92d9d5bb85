// Fuzzes the FCLIB reader, the mapping to a contact problem and the solvers
// on what it maps. The input does not become the HDF5 file's bytes: it is
// decoded into the datasets of an FCLIB problem (sizes, storage codes,
// indices, numbers: mostly consistent, sometimes not, with extreme and
// non-finite values), written with the HDF5 library, then read back. So the
// fuzzer explores our validation, not libhdf5's parser of corrupt files
// (docs/reliability.md says why). Accepted: a solve (never throws), or
// std::runtime_error naming the file from reading or mapping.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "coulomb/fclib/fclib_contact_problem.h"
#include "coulomb/fclib/fclib_problem.h"
#include "coulomb/fclib/fclib_solve.h"
#include "coulomb/io/hdf5_file.h"
#include "fuzz_harness.h"

namespace {

// Reads decisions out of the fuzzer's bytes; zeros once they run out.
class Decisions {
 public:
  Decisions(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return used_ < size_ ? data_[used_++] : 0; }
  bool Chance(int out_of) { return (Byte() + 1) % out_of == 0; }  // false once out
  int Between(int low, int high) { return low + Byte() % (high - low + 1); }
  // Mostly small numbers of either sign, sometimes extreme or non-finite.
  double Number() {
    static constexpr double kSpecial[] = {0.0,
                                          1.0,
                                          -1.0,
                                          1e-300,
                                          1e300,
                                          -1e300,
                                          std::numeric_limits<double>::infinity(),
                                          std::numeric_limits<double>::quiet_NaN(),
                                          std::numeric_limits<double>::denorm_min(),
                                          1e-8};
    const uint8_t kind = Byte();
    if (kind < 16) return kSpecial[kind % std::size(kSpecial)];
    return (static_cast<int>(Byte()) - 128) / 16.0;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t used_ = 0;
};

// An integer near `consistent`, sometimes off by a little or a lot.
long long Size(Decisions* d, long long consistent) {
  switch (d->Byte() % 16) {
    case 0:
      return consistent + d->Between(-2, 2);
    case 1:
      return -d->Between(0, 3);
    case 2:
      return 1LL << d->Between(20, 62);
    default:
      return consistent;
  }
}

std::vector<double> Numbers(Decisions* d, long long count) {
  std::vector<double> values(static_cast<size_t>(std::clamp(count, 0LL, 4096LL)));
  for (double& value : values) value = d->Number();
  return values;
}

// A sparse matrix group: m, n, nz and triplets (i, p, x), or compressed
// storage (nz = −1 columns, −2 rows) with pointers; every dataset sometimes
// missing or the wrong size.
void WriteMatrix(coulomb::Hdf5File* file, const std::string& group, long long rows,
                 long long cols, Decisions* d) {
  const long long entries = d->Between(0, static_cast<int>(std::min(rows * cols, 60LL)));
  const int storage = d->Between(0, 3);  // 0, 1: triplets; 2: CSC (−1); 3: CSR (−2)
  const long long nz = storage < 2 ? entries : (storage == 2 ? -1 : -2);
  if (!d->Chance(32)) file->WriteIntegers(group + "/m", {Size(d, rows)});
  if (!d->Chance(32)) file->WriteIntegers(group + "/n", {Size(d, cols)});
  if (!d->Chance(32)) file->WriteIntegers(group + "/nz", {Size(d, nz)});
  std::vector<long long> i(static_cast<size_t>(std::max(0LL, Size(d, entries)) % 4096));
  for (long long& index : i)
    index = d->Chance(64) ? Size(d, rows) : d->Between(0, 255) % std::max(1LL, rows);
  std::vector<long long> p;
  if (storage < 2) {
    p.resize(i.size());
    for (long long& index : p)
      index = d->Chance(64) ? Size(d, cols) : d->Between(0, 255) % std::max(1LL, cols);
  } else {
    const long long outer = storage == 2 ? cols : rows;
    p.push_back(0);
    for (long long k = 0; k < outer; ++k)
      p.push_back(std::min<long long>(p.back() + d->Between(0, 3), entries));
    if (d->Chance(16)) p.back() = Size(d, entries);
  }
  if (!d->Chance(32)) file->WriteIntegers(group + "/i", i);
  if (!d->Chance(32)) file->WriteIntegers(group + "/p", p);
  if (!d->Chance(32)) {
    const std::vector<double> x = Numbers(d, Size(d, entries));
    file->WriteDoubles(group + "/x",
                       Eigen::Map<const Eigen::VectorXd>(x.data(), std::ssize(x)));
  }
}

void WriteVector(coulomb::Hdf5File* file, const std::string& dataset, long long size,
                 Decisions* d) {
  if (d->Chance(32)) return;
  const std::vector<double> values = Numbers(d, Size(d, size));
  file->WriteDoubles(
      dataset, Eigen::Map<const Eigen::VectorXd>(values.data(), std::ssize(values)));
}

// Friction coefficients: mostly in [0, 2].
void WriteFriction(coulomb::Hdf5File* file, const std::string& root, int contacts,
                   Decisions* d) {
  const long long count = Size(d, contacts);
  Eigen::VectorXd mu(count > 0 ? count % 64 : 0);
  for (Eigen::Index k = 0; k < mu.size();
       ++k)  // (Eigen's iterators: not on empty vectors)
    mu[k] = d->Chance(8) ? d->Number() : d->Between(0, 20) / 10.0;
  file->WriteDoubles(root + "/vectors/mu", mu);
}

void WriteProblem(const std::string& path, Decisions* d) {
  coulomb::Hdf5File file(path, coulomb::Hdf5File::Mode::kCreate);
  const bool global = d->Chance(2);
  const std::string root = global ? "/fclib_global" : "/fclib_local";
  const int contacts = d->Between(1, 6);
  const long long size = 3LL * contacts;
  if (d->Chance(16)) file.WriteIntegers(root + "/spacedim", {d->Between(1, 4)});
  WriteFriction(&file, root, contacts, d);
  if (global) {
    const int dofs = d->Between(1, 12);
    WriteVector(&file, root + "/vectors/f", dofs, d);
    WriteMatrix(&file, root + "/M", dofs, dofs, d);
    WriteMatrix(&file, root + "/H", dofs, size, d);
    WriteVector(&file, root + "/vectors/w", size, d);
  } else {
    WriteMatrix(&file, root + "/W", size, size, d);
    WriteVector(&file, root + "/vectors/q", size, d);
  }
}

void Solve(const coulomb::FclibProblem& problem) {
  const coulomb::FclibContactProblem mapped = coulomb::BuildFclibContactProblem(problem);
  for (const auto kind :
       {coulomb::ContactSolverKind::kSap, coulomb::ContactSolverKind::kCanal,
        coulomb::ContactSolverKind::kPgs}) {
    coulomb::ContactSolverOptions options;
    options.kind = kind;
    // Budgets that keep an input well within the 5 s allowed: under the
    // fuzzing build's instrumentation (comparisons traced) CANAL's inner SAP
    // solves, each with exact line searches of up to 100 root-finding steps,
    // took 4.2 s on one input at 50 outer and 25 inner iterations (63 ms in
    // the release build).
    options.sap.max_iterations = 50;
    options.ncp.max_iterations = 20;
    options.ncp.inner_max_iterations = 10;
    coulomb::SolveFclibProblem(problem, mapped, options);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = coulomb::fuzz::ScratchPath(".hdf5");
  Decisions decisions(data, size);
  try {
    WriteProblem(path, &decisions);
  } catch (const std::exception& error) {
    coulomb::fuzz::FailOnUnexpected("writing the problem", error);
  }
  coulomb::FclibProblem problem;
  try {
    problem = coulomb::ReadFclibProblem(path);
    Solve(problem);
  } catch (const std::runtime_error&) {
  } catch (const std::exception& error) {
    coulomb::fuzz::FailOnUnexpected("reading, mapping or solving", error);
  }
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  return 0;
}
