#pragma once

#include <hdf5.h>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace coulomb {

// A thin RAII wrapper over the HDF5 C API for the few operations FCLIB files
// and run outputs need: read numeric datasets whole (converted to double or
// int64) or by rows, and strings; write numbers and strings; grow datasets
// by rows (chunked, unlimited along rows) and flush. Every failure throws
// std::runtime_error with
// "<file>: <dataset>: <what>"; HDF5's own error printing is silenced.
class Hdf5File {
 public:
  // kCreateGrowing: a new file in HDF5's 1.10 format for growing datasets,
  // written as a single writer (StartSingleWriter). kRead also opens such a
  // file while it grows or after its writer was killed.
  enum class Mode { kRead, kCreate, kCreateGrowing };

  Hdf5File(const std::string& path, Mode mode);
  ~Hdf5File();
  Hdf5File(const Hdf5File&) = delete;
  Hdf5File& operator=(const Hdf5File&) = delete;
  Hdf5File(Hdf5File&& other) noexcept
      : path_(std::move(other.path_)),
        file_(std::exchange(other.file_, -1)),
        growing_(std::move(other.growing_)),
        groups_(std::move(other.groups_)),
        chunked_layouts_(std::move(other.chunked_layouts_)) {
    other.growing_.clear();
    other.groups_.clear();
    other.chunked_layouts_.clear();
  }
  Hdf5File& operator=(Hdf5File&&) = delete;

  const std::string& path() const { return path_; }
  bool Exists(const std::string& object_path) const;

  Eigen::VectorXd ReadDoubles(const std::string& dataset) const;
  std::vector<long long> ReadIntegers(const std::string& dataset) const;
  long long ReadInteger(const std::string& dataset) const;
  std::string ReadString(const std::string& dataset) const;
  std::vector<std::string> ReadStrings(const std::string& dataset) const;
  // The extent of a dataset, e.g. {rows, cols}.
  std::vector<size_t> Dimensions(const std::string& dataset) const;
  // The names of a group's members, in name order.
  std::vector<std::string> Members(const std::string& group) const;
  // Rows [first, first + count) of a numeric matrix (row-major) or vector.
  std::vector<double> ReadRows(const std::string& dataset, size_t first,
                               size_t count) const;

  // Creates the intermediate groups as needed.
  void WriteDoubles(const std::string& dataset, const Eigen::VectorXd& values);
  void WriteIntegers(const std::string& dataset, const std::vector<long long>& values);
  // Stored as 32-bit integers, as FCLIB's files hold theirs; throws
  // std::runtime_error naming the dataset for a value that does not fit.
  void WriteInt32s(const std::string& dataset, const std::vector<long long>& values);
  // A scalar fixed-length string (as FCLIB's files hold their info texts).
  void WriteString(const std::string& dataset, const std::string& value);
  // A 1-D dataset of variable-length UTF-8 strings.
  void WriteStrings(const std::string& dataset, const std::vector<std::string>& values);
  // A rows × cols dataset from row-major values.
  void WriteMatrix(const std::string& dataset, const std::vector<double>& row_major,
                   size_t rows, size_t cols);

  // Appends `rows` rows of `cols` numbers (row-major) to a growable matrix,
  // created (with no rows) on first use; cols = 0: a growable vector. The
  // columns must match those the dataset was created with.
  void AppendRows(const std::string& dataset, const double* row_major, size_t rows,
                  size_t cols);
  void AppendIntegers(const std::string& dataset, const long long* values, size_t count);
  // The first `rows` rows of `source`'s growable dataset appended to this
  // file's dataset of the same path, type and columns (created if missing).
  // Read and written in blocks: memory does not grow with the dataset.
  void CopyRows(const Hdf5File& source, const std::string& dataset, size_t rows);
  // A whole object (dataset or group) of `source` copied to the same path.
  void CopyObject(const Hdf5File& source, const std::string& object_path);
  // From here on the file is written in HDF5's single-writer (SWMR) mode:
  // metadata reaches the disk in an order that keeps the file readable at
  // every moment, by readers while it grows and after the writer is killed.
  // No dataset can be created after this call; growing ones can grow.
  void StartSingleWriter();
  // Renames the open file on disk (same file system): a file is built under
  // a temporary name and appears whole.
  void Rename(const std::string& path);
  // Everything written so far onto the disk: a process killed after Flush
  // leaves a file that reads as it was then.
  void Flush();

  [[noreturn]] void Fail(const std::string& object_path, const std::string& what) const;

 private:
  hid_t OpenDataset(const std::string& dataset) const;
  long long NumElements(hid_t dataset_id, const std::string& dataset) const;
  void Write(const std::string& dataset, hid_t file_type, hid_t memory_type,
             const std::vector<hsize_t>& dimensions, const void* data);
  // A growable dataset this file appends to: kept open, with its extent,
  // from the first append to the file's close, so that an append neither
  // looks its path up nor reads its extent (a run appends to four datasets
  // per body at every flush).
  struct GrowingDataset {
    hid_t id;
    hsize_t rows;
    size_t cols;  // 0: a vector
  };
  // The growable dataset, opened, or created when missing with `cols`
  // columns (0: rank 1); throws if it exists with another shape.
  GrowingDataset& Growing(const std::string& dataset, hid_t file_type, size_t cols);
  void Append(const std::string& dataset, hid_t file_type, hid_t memory_type,
              const void* data, size_t rows, size_t cols);
  // The group at `group_path` ("" or "/": the root), opened or created with
  // its missing parents, and kept open in groups_ until the file enters
  // single-writer mode or closes: a growing dataset is created in its
  // parent by name, not by a path looked up from the root (a run's file
  // holds a group per body under /bodies).
  hid_t Group(const std::string& group_path);
  // An object's parent group (Group) and its name in it (a pointer into
  // `object_path`).
  std::pair<hid_t, const char*> ParentAndName(const std::string& object_path);
  void CloseGroups();
  // The creation properties of a growing dataset of `cols` columns (its
  // chunks), made once per width.
  hid_t ChunkedLayout(size_t cols);

  std::string path_;
  hid_t file_ = -1;
  std::unordered_map<std::string, GrowingDataset> growing_;
  std::unordered_map<std::string, hid_t> groups_;
  std::unordered_map<size_t, hid_t> chunked_layouts_;
};

}  // namespace coulomb
