#include "coulomb/io/hdf5_file.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace coulomb {
namespace {

// Closes an HDF5 handle with the right function when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// File access in HDF5's latest format (1.10), which single-writer mode needs.
hid_t LatestFormatAccess() {
  const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_libver_bounds(access, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  return access;
}

}  // namespace

Hdf5File::Hdf5File(const std::string& path, Mode mode) : path_(path) {
  // HDF5 1.10 crashes at exit closing a file whose last write failed (a
  // full disk): files are closed by their owners, never by an exit handler.
  static const bool no_exit_handler = (H5dont_atexit(), true);
  (void)no_exit_handler;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // we report errors ourselves
  if (mode == Mode::kRead) {
    if (H5Fis_hdf5(path.c_str()) <= 0) {
      throw std::runtime_error(path + ": cannot open (missing or not an HDF5 file)");
    }
    file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    // A growing file whose writer is alive or was killed opens as a reader
    // of a single writer. Such a reader retries a metadata block whose
    // checksum fails, sleeping twice as long each time (HDF5 1.10): a
    // bounded number of attempts (about 1 ms in all) turns a block a killed
    // writer left damaged into an error instead of a sleep without end.
    if (file_ < 0) {
      const Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
      H5Pset_metadata_read_attempts(access.get(), 20);
      file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, access.get());
    }
  } else if (mode == Mode::kCreateGrowing) {
    const Handle access(LatestFormatAccess(), H5Pclose);
    file_ = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get());
  } else {
    file_ = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  }
  if (file_ < 0) throw std::runtime_error(path + ": cannot open");
}

Hdf5File::~Hdf5File() {
  for (const auto& [name, dataset] : growing_) H5Dclose(dataset.id);
  for (const auto& [cols, properties] : chunked_layouts_) H5Pclose(properties);
  CloseGroups();
  if (file_ >= 0) H5Fclose(file_);
}

void Hdf5File::Fail(const std::string& object_path, const std::string& what) const {
  throw std::runtime_error(path_ + ": " + object_path + ": " + what);
}

bool Hdf5File::Exists(const std::string& object_path) const {
  // Check each prefix: H5Lexists fails on a path whose parent is missing.
  for (size_t slash = object_path.find('/', 1);;
       slash = object_path.find('/', slash + 1)) {
    const std::string prefix = object_path.substr(0, slash);
    if (H5Lexists(file_, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
  }
}

std::vector<std::string> Hdf5File::Members(const std::string& group) const {
  if (!Exists(group)) Fail(group, "missing");
  std::vector<std::string> names;
  const auto collect = [](hid_t, const char* name, const H5L_info_t*,
                          void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  };
  if (H5Literate_by_name(file_, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
                         collect, &names, H5P_DEFAULT) < 0) {
    Fail(group, "is not a readable group");
  }
  return names;
}

hid_t Hdf5File::OpenDataset(const std::string& dataset) const {
  if (!Exists(dataset)) Fail(dataset, "missing");
  const hid_t id = H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT);
  if (id < 0) Fail(dataset, "is not a dataset");
  return id;
}

long long Hdf5File::NumElements(hid_t dataset_id, const std::string& dataset) const {
  const Handle space(H5Dget_space(dataset_id), H5Sclose);
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 0) Fail(dataset, "has no readable extent");
  return count;
}

Eigen::VectorXd Hdf5File::ReadDoubles(const std::string& dataset) const {
  const Handle id(OpenDataset(dataset), H5Dclose);
  const Handle type(H5Dget_type(id.get()), H5Tclose);
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_FLOAT && type_class != H5T_INTEGER)
    Fail(dataset, "is not numeric");
  Eigen::VectorXd values(NumElements(id.get(), dataset));
  if (values.size() > 0 && H5Dread(id.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                                   H5P_DEFAULT, values.data()) < 0) {
    Fail(dataset, "cannot be read as numbers");
  }
  return values;
}

std::vector<long long> Hdf5File::ReadIntegers(const std::string& dataset) const {
  const Handle id(OpenDataset(dataset), H5Dclose);
  const Handle type(H5Dget_type(id.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_INTEGER) Fail(dataset, "is not an integer dataset");
  std::vector<long long> values(NumElements(id.get(), dataset));
  if (!values.empty() && H5Dread(id.get(), H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL,
                                 H5P_DEFAULT, values.data()) < 0) {
    Fail(dataset, "cannot be read as integers");
  }
  return values;
}

long long Hdf5File::ReadInteger(const std::string& dataset) const {
  const std::vector<long long> values = ReadIntegers(dataset);
  if (values.size() != 1) {
    Fail(dataset, "expected one integer, found " + std::to_string(values.size()));
  }
  return values.front();
}

std::string Hdf5File::ReadString(const std::string& dataset) const {
  const Handle id(OpenDataset(dataset), H5Dclose);
  const Handle type(H5Dget_type(id.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING) Fail(dataset, "is not a string");
  if (H5Tis_variable_str(type.get()) > 0) {
    char* text = nullptr;
    const Handle memory_type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memory_type.get(), H5T_VARIABLE);
    if (H5Dread(id.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) < 0) {
      Fail(dataset, "cannot be read");
    }
    std::string result = text != nullptr ? text : "";
    H5free_memory(text);
    return result;
  }
  std::string buffer(H5Tget_size(type.get()), '\0');
  if (H5Dread(id.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0) {
    Fail(dataset, "cannot be read");
  }
  return buffer.substr(0, buffer.find('\0'));
}

std::vector<std::string> Hdf5File::ReadStrings(const std::string& dataset) const {
  const Handle id(OpenDataset(dataset), H5Dclose);
  const Handle type(H5Dget_type(id.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) <= 0) {
    Fail(dataset, "is not a list of variable-length strings");
  }
  std::vector<char*> texts(NumElements(id.get(), dataset), nullptr);
  if (!texts.empty() &&
      H5Dread(id.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()) < 0) {
    Fail(dataset, "cannot be read");
  }
  std::vector<std::string> values;
  for (char* text : texts) {
    values.emplace_back(text != nullptr ? text : "");
    H5free_memory(text);
  }
  return values;
}

std::vector<size_t> Hdf5File::Dimensions(const std::string& dataset) const {
  const Handle id(OpenDataset(dataset), H5Dclose);
  const Handle space(H5Dget_space(id.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) Fail(dataset, "has no readable extent");
  std::vector<hsize_t> extent(rank);
  H5Sget_simple_extent_dims(space.get(), extent.data(), nullptr);
  return std::vector<size_t>(extent.begin(), extent.end());
}

std::vector<double> Hdf5File::ReadRows(const std::string& dataset, size_t first,
                                       size_t count) const {
  std::vector<size_t> extent = Dimensions(dataset);
  if (extent.size() == 1) extent.push_back(1);  // a vector: one column
  if (extent.size() != 2) Fail(dataset, "is not a vector or a matrix");
  if (first + count > extent[0]) {
    Fail(dataset, "has " + std::to_string(extent[0]) + " rows, asked for rows " +
                      std::to_string(first) + " to " + std::to_string(first + count));
  }
  std::vector<double> values(count * extent[1]);
  if (values.empty()) return values;
  const Handle id(OpenDataset(dataset), H5Dclose);
  const Handle file_space(H5Dget_space(id.get()), H5Sclose);
  const hsize_t start[2] = {first, 0}, size[2] = {count, extent[1]};
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, size, nullptr);
  const int rank = H5Sget_simple_extent_ndims(file_space.get());
  const Handle memory_space(H5Screate_simple(rank, size, nullptr), H5Sclose);
  if (H5Dread(id.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(),
              H5P_DEFAULT, values.data()) < 0) {
    Fail(dataset, "cannot be read as numbers");
  }
  return values;
}

void Hdf5File::WriteDoubles(const std::string& dataset, const Eigen::VectorXd& values) {
  Write(dataset, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {static_cast<hsize_t>(values.size())},
        values.data());
}

void Hdf5File::WriteMatrix(const std::string& dataset,
                           const std::vector<double>& row_major, size_t rows,
                           size_t cols) {
  if (row_major.size() != rows * cols) Fail(dataset, "matrix data has the wrong size");
  Write(dataset, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {rows, cols}, row_major.data());
}

void Hdf5File::WriteIntegers(const std::string& dataset,
                             const std::vector<long long>& values) {
  Write(dataset, H5T_STD_I64LE, H5T_NATIVE_LLONG, {values.size()}, values.data());
}

void Hdf5File::WriteInt32s(const std::string& dataset,
                           const std::vector<long long>& values) {
  for (const long long value : values) {
    if (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<int32_t>::max())
      Fail(dataset, std::to_string(value) + " does not fit a 32-bit integer");
  }
  Write(dataset, H5T_STD_I32LE, H5T_NATIVE_LLONG, {values.size()}, values.data());
}

void Hdf5File::WriteString(const std::string& dataset, const std::string& value) {
  const Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<size_t>(value.size(), 1));  // HDF5 refuses size 0
  const Handle link_properties(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(link_properties.get(), 1);
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle id(H5Dcreate2(file_, dataset.c_str(), type.get(), space.get(),
                             link_properties.get(), H5P_DEFAULT, H5P_DEFAULT),
                  H5Dclose);
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  if (id.get() < 0 ||
      H5Dwrite(id.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, padded.data()) < 0) {
    Fail(dataset, "cannot be written");
  }
}

void Hdf5File::WriteStrings(const std::string& dataset,
                            const std::vector<std::string>& values) {
  const Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  std::vector<const char*> texts;
  for (const std::string& value : values) texts.push_back(value.c_str());
  Write(dataset, type.get(), type.get(), {values.size()}, texts.data());
}

void Hdf5File::Write(const std::string& dataset, hid_t file_type, hid_t memory_type,
                     const std::vector<hsize_t>& dimensions, const void* data) {
  const Handle link_properties(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(link_properties.get(), 1);
  const Handle space(
      H5Screate_simple(static_cast<int>(dimensions.size()), dimensions.data(), nullptr),
      H5Sclose);
  size_t size = 1;
  for (hsize_t dimension : dimensions) size *= dimension;
  const Handle id(H5Dcreate2(file_, dataset.c_str(), file_type, space.get(),
                             link_properties.get(), H5P_DEFAULT, H5P_DEFAULT),
                  H5Dclose);
  if (id.get() < 0 || (size > 0 && H5Dwrite(id.get(), memory_type, H5S_ALL, H5S_ALL,
                                            H5P_DEFAULT, data) < 0)) {
    Fail(dataset, "cannot be written");
  }
}

Hdf5File::GrowingDataset& Hdf5File::Growing(const std::string& dataset, hid_t file_type,
                                            size_t cols) {
  const auto known = growing_.find(dataset);
  if (known != growing_.end()) {
    if (known->second.cols != cols)
      Fail(dataset, "has another shape than the rows appended");
    return known->second;
  }
  const auto [parent, name] = ParentAndName(dataset);
  if (H5Lexists(parent, name, H5P_DEFAULT) > 0) {
    const std::vector<size_t> extent = Dimensions(dataset);
    if ((cols == 0 && extent.size() != 1) ||
        (cols > 0 && (extent.size() != 2 || extent[1] != cols))) {
      Fail(dataset, "has another shape than the rows appended");
    }
    const hid_t id = H5Dopen2(parent, name, H5P_DEFAULT);
    if (id < 0) Fail(dataset, "is not a dataset");
    return growing_[dataset] = {.id = id, .rows = extent[0], .cols = cols};
  }
  const int rank = cols == 0 ? 1 : 2;
  const hsize_t empty[2] = {0, cols}, unlimited[2] = {H5S_UNLIMITED, cols};
  const Handle space(H5Screate_simple(rank, empty, unlimited), H5Sclose);
  const hid_t id = H5Dcreate2(parent, name, file_type, space.get(), H5P_DEFAULT,
                              ChunkedLayout(cols), H5P_DEFAULT);
  if (id < 0) Fail(dataset, "cannot be created");
  return growing_[dataset] = {.id = id, .rows = 0, .cols = cols};
}

void Hdf5File::Append(const std::string& dataset, hid_t file_type, hid_t memory_type,
                      const void* data, size_t rows, size_t cols) {
  GrowingDataset& growing = Growing(dataset, file_type, cols);
  if (rows == 0) return;
  const int rank = cols == 0 ? 1 : 2;
  const hsize_t start[2] = {growing.rows, 0}, size[2] = {rows, cols};
  const hsize_t grown[2] = {growing.rows + rows, cols};
  if (H5Dset_extent(growing.id, grown) < 0) Fail(dataset, "cannot grow");
  growing.rows += rows;  // the extent on file, whether or not the write succeeds
  const Handle file_space(H5Dget_space(growing.id), H5Sclose);
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, size, nullptr);
  const Handle memory_space(H5Screate_simple(rank, size, nullptr), H5Sclose);
  if (H5Dwrite(growing.id, memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT,
               data) < 0) {
    Fail(dataset, "cannot be written (is the disk full?)");
  }
}

void Hdf5File::AppendRows(const std::string& dataset, const double* row_major,
                          size_t rows, size_t cols) {
  Append(dataset, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, row_major, rows, cols);
}

void Hdf5File::AppendIntegers(const std::string& dataset, const long long* values,
                              size_t count) {
  Append(dataset, H5T_STD_I64LE, H5T_NATIVE_LLONG, values, count, 0);
}

void Hdf5File::CopyRows(const Hdf5File& source, const std::string& dataset, size_t rows) {
  const std::vector<size_t> extent = source.Dimensions(dataset);
  if (extent.empty() || extent.size() > 2 || extent[0] < rows)
    source.Fail(dataset, "has fewer rows than the samples it should hold");
  const size_t cols = extent.size() == 2 ? extent[1] : 0;
  const Handle from(source.OpenDataset(dataset), H5Dclose);
  const Handle file_type(H5Dget_type(from.get()), H5Tclose);
  const Handle memory_type(H5Tget_native_type(file_type.get(), H5T_DIR_ASCEND), H5Tclose);
  const size_t row_bytes = H5Tget_size(memory_type.get()) * std::max<size_t>(cols, 1);
  const size_t block_rows = std::max<size_t>(1, (size_t{1} << 20) / row_bytes);
  std::vector<unsigned char> block(std::min(rows, block_rows) * row_bytes);
  const Handle file_space(H5Dget_space(from.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(file_space.get());
  for (size_t first = 0;; first += block_rows) {
    const size_t count = std::min(block_rows, rows - std::min(rows, first));
    if (count > 0) {
      const hsize_t start[2] = {first, 0}, size[2] = {count, std::max<size_t>(cols, 1)};
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, size,
                          nullptr);
      const Handle memory_space(H5Screate_simple(rank, size, nullptr), H5Sclose);
      if (H5Dread(from.get(), memory_type.get(), memory_space.get(), file_space.get(),
                  H5P_DEFAULT, block.data()) < 0) {
        source.Fail(dataset, "cannot be read (damaged by the writer's end?)");
      }
    }
    Append(dataset, file_type.get(), memory_type.get(), block.data(), count, cols);
    if (count < block_rows) return;
  }
}

void Hdf5File::CopyObject(const Hdf5File& source, const std::string& object_path) {
  const Handle link_properties(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(link_properties.get(), 1);
  if (H5Ocopy(source.file_, object_path.c_str(), file_, object_path.c_str(), H5P_DEFAULT,
              link_properties.get()) < 0) {
    Fail(object_path, "cannot be copied from " + source.path());
  }
}

void Hdf5File::Rename(const std::string& path) {
  if (std::rename(path_.c_str(), path.c_str()) != 0) {
    throw std::runtime_error(path_ + ": cannot be renamed to " + path);
  }
  path_ = path;
}

hid_t Hdf5File::Group(const std::string& group_path) {
  if (group_path.empty() || group_path == "/") return file_;
  const auto known = groups_.find(group_path);
  if (known != groups_.end()) return known->second;
  const auto [parent, name] = ParentAndName(group_path);
  const bool exists = H5Lexists(parent, name, H5P_DEFAULT) > 0;
  const hid_t id = exists
                       ? H5Gopen2(parent, name, H5P_DEFAULT)
                       : H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (id < 0) Fail(group_path, exists ? "is not a group" : "cannot be created");
  return groups_[group_path] = id;
}

std::pair<hid_t, const char*> Hdf5File::ParentAndName(const std::string& object_path) {
  const size_t slash = object_path.rfind('/');
  if (slash == std::string::npos) return {file_, object_path.c_str()};
  return {Group(object_path.substr(0, slash)), object_path.c_str() + slash + 1};
}

hid_t Hdf5File::ChunkedLayout(size_t cols) {
  hid_t& properties = chunked_layouts_[cols];
  if (properties > 0) return properties;
  // Chunks of about 2 K numbers (16 kB, at most 256 rows): a file holds
  // hundreds of growing datasets (four per body), each with a chunk in use.
  const hsize_t chunk_rows =
      std::clamp<hsize_t>(2048 / std::max<size_t>(cols, 1), 1, 256);
  const hsize_t chunk[2] = {chunk_rows, std::max<hsize_t>(cols, 1)};
  properties = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(properties, cols == 0 ? 1 : 2, chunk);
  return properties;
}

void Hdf5File::CloseGroups() {
  for (const auto& [name, id] : groups_) H5Gclose(id);
  groups_.clear();
}

void Hdf5File::StartSingleWriter() {
  CloseGroups();  // (HDF5 would reopen every open object)
  if (H5Fstart_swmr_write(file_) < 0) Fail("/", "cannot start single-writer mode");
}

void Hdf5File::Flush() {
  if (H5Fflush(file_, H5F_SCOPE_GLOBAL) < 0)
    Fail("/", "cannot be flushed (is the disk full?)");
}

}  // namespace coulomb
