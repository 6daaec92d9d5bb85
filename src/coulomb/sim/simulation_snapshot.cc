#include "coulomb/sim/simulation_snapshot.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace coulomb {
namespace {

static_assert(std::endian::native == std::endian::little,
              "snapshot bytes are written as this machine holds them: little-endian");

constexpr std::string_view kTag = "coulomb-snapshot-4";

class Writer {
 public:
  void Int(int32_t value) { Raw(&value, sizeof(value)); }
  void Double(double value) { Raw(&value, sizeof(value)); }
  void Size(size_t size) { Int(static_cast<int32_t>(size)); }
  void Text(std::string_view text) {
    Size(text.size());
    bytes_.append(text);
  }
  void Vector(const Eigen::VectorXd& x) {
    Size(static_cast<size_t>(x.size()));
    Raw(x.data(), sizeof(double) * static_cast<size_t>(x.size()));
  }
  void Vector3(const Eigen::Vector3d& x) { Raw(x.data(), 3 * sizeof(double)); }
  // A rigid motion's 3 × 4 matrix, column by column.
  void Pose(const Eigen::Isometry3d& X) {
    for (int k = 0; k < 12; ++k) Double(X.matrix()(k % 3, k / 3));
  }
  std::string Take() { return std::move(bytes_); }

 private:
  void Raw(const void* data, size_t size) {
    if (size > 0)
      bytes_.append(static_cast<const char*>(data), size);  // data may be null
  }
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  int32_t Int() {
    int32_t value = 0;
    Raw(&value, sizeof(value));
    return value;
  }
  double Double() {
    double value = 0.0;
    Raw(&value, sizeof(value));
    return value;
  }
  // A count of items of `item_size` bytes each, refused beyond what is left.
  size_t Size(size_t item_size) {
    const int32_t size = Int();
    if (size < 0 || static_cast<size_t>(size) * item_size > bytes_.size() - offset_)
      Fail("a count larger than what follows");
    return static_cast<size_t>(size);
  }
  std::string Text() {
    const size_t size = Size(1);
    std::string text(bytes_.substr(offset_, size));
    offset_ += size;
    return text;
  }
  Eigen::VectorXd Vector() {
    Eigen::VectorXd x(static_cast<Eigen::Index>(Size(sizeof(double))));
    Raw(x.data(), sizeof(double) * static_cast<size_t>(x.size()));
    return x;
  }
  Eigen::Vector3d Vector3() {
    Eigen::Vector3d x;
    Raw(x.data(), 3 * sizeof(double));
    return x;
  }
  Eigen::Isometry3d Pose() {
    Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
    for (int k = 0; k < 12; ++k) X.matrix()(k % 3, k / 3) = Double();
    return X;
  }
  bool AtEnd() const { return offset_ == bytes_.size(); }
  [[noreturn]] void Fail(const std::string& what) const {
    throw std::invalid_argument("snapshot bytes: " + what + " at byte " +
                                std::to_string(offset_) + " of " +
                                std::to_string(bytes_.size()));
  }

 private:
  void Raw(void* data, size_t size) {
    if (size > bytes_.size() - offset_) Fail("cut short");
    if (size == 0) return;  // an empty vector's data() may be null: no memcpy
    std::memcpy(data, bytes_.data() + offset_, size);
    offset_ += size;
  }
  std::string_view bytes_;
  size_t offset_ = 0;
};

void WriteController(const JointPdController& c, Writer* out) {
  out->Text(c.joint);
  out->Int(c.position);
  out->Int(c.velocity);
  const PdControllerConstraint::Parameters& g = c.gains;
  for (double x : {g.proportional_gain, g.derivative_gain, g.target_position,
                   g.target_velocity, g.feedforward, g.effort_limit})
    out->Double(x);
}

JointPdController ReadController(Reader* in) {
  JointPdController c;
  c.joint = in->Text();
  c.position = in->Int();
  c.velocity = in->Int();
  PdControllerConstraint::Parameters& g = c.gains;
  for (double* x : {&g.proportional_gain, &g.derivative_gain, &g.target_position,
                    &g.target_velocity, &g.feedforward, &g.effort_limit})
    *x = in->Double();
  return c;
}

void WriteTree(const SimulationSnapshot::TreeState& tree, Writer* out) {
  out->Text(tree.name);
  out->Vector(tree.q);
  out->Vector(tree.v);
  out->Size(tree.controllers.size());
  for (const JointPdController& c : tree.controllers) WriteController(c, out);
  out->Vector(tree.applied_force);
  out->Vector3(tree.applied_force_W);
  out->Vector3(tree.applied_torque_W);
  out->Size(tree.frictions.size());
  for (const JointFriction& f : tree.frictions) {
    out->Text(f.joint);
    out->Int(f.velocity);
    out->Double(f.friction);
  }
  out->Size(tree.connections.size());
  for (const SimulationSnapshot::TreeState::Connection& c : tree.connections) {
    out->Int(c.active ? 1 : 0);
    out->Pose(c.X_WT);
  }
}

SimulationSnapshot::TreeState ReadTree(Reader* in) {
  SimulationSnapshot::TreeState tree;
  tree.name = in->Text();
  tree.q = in->Vector();
  tree.v = in->Vector();
  // A controller takes at least 4 + 2·4 + 6·8 bytes.
  tree.controllers.resize(in->Size(60));
  for (JointPdController& c : tree.controllers) c = ReadController(in);
  tree.applied_force = in->Vector();
  tree.applied_force_W = in->Vector3();
  tree.applied_torque_W = in->Vector3();
  // A friction takes at least 4 + 4 + 8 bytes.
  tree.frictions.resize(in->Size(16));
  for (JointFriction& f : tree.frictions) {
    f.joint = in->Text();
    f.velocity = in->Int();
    f.friction = in->Double();
  }
  // A connection takes 4 + 12·8 bytes.
  tree.connections.resize(in->Size(100));
  for (SimulationSnapshot::TreeState::Connection& c : tree.connections) {
    c.active = in->Int() != 0;
    c.X_WT = in->Pose();
  }
  return tree;
}

void WriteContact(const ContactPoint& c, const Eigen::Vector3d& impulse_C, Writer* out) {
  out->Int(c.geometry_a);
  out->Int(c.geometry_b);
  out->Vector3(c.p_W);
  out->Vector3(c.normal_W);
  out->Double(c.phi);
  out->Double(c.weight);
  out->Vector3(impulse_C);
}

Eigen::VectorXd Stacked(const std::vector<SimulationSnapshot::TreeState>& trees,
                        Eigen::VectorXd SimulationSnapshot::TreeState::*part) {
  Eigen::Index size = 0;
  for (const SimulationSnapshot::TreeState& tree : trees) size += (tree.*part).size();
  Eigen::VectorXd stacked(size);
  Eigen::Index offset = 0;
  for (const SimulationSnapshot::TreeState& tree : trees) {
    stacked.segment(offset, (tree.*part).size()) = tree.*part;
    offset += (tree.*part).size();
  }
  return stacked;
}

}  // namespace

Eigen::VectorXd SimulationSnapshot::StackedPositions() const {
  return Stacked(trees, &TreeState::q);
}

Eigen::VectorXd SimulationSnapshot::StackedVelocities() const {
  return Stacked(trees, &TreeState::v);
}

std::string EncodeSnapshot(const SimulationSnapshot& snapshot) {
  if (snapshot.warm_start_contacts.size() != snapshot.warm_start_impulses_C.size())
    throw std::invalid_argument("EncodeSnapshot: one warm-start impulse per contact");
  Writer out;
  out.Text(kTag);
  out.Double(snapshot.time);
  out.Size(snapshot.trees.size());
  for (const SimulationSnapshot::TreeState& tree : snapshot.trees) WriteTree(tree, &out);
  out.Size(snapshot.warm_start_contacts.size());
  for (size_t i = 0; i < snapshot.warm_start_contacts.size(); ++i)
    WriteContact(snapshot.warm_start_contacts[i], snapshot.warm_start_impulses_C[i],
                 &out);
  out.Size(snapshot.mocap_poses.size());
  for (const Eigen::Isometry3d& X_WB : snapshot.mocap_poses) out.Pose(X_WB);
  return out.Take();
}

SimulationSnapshot DecodeSnapshot(std::string_view bytes) {
  Writer tag;
  tag.Text(kTag);
  if (!bytes.starts_with(tag.Take())) {
    throw std::invalid_argument("snapshot bytes: not a " + std::string(kTag) +
                                " (not a snapshot, or one of another version)");
  }
  Reader in(bytes);
  in.Text();
  SimulationSnapshot snapshot;
  snapshot.time = in.Double();
  // A tree takes at least 5 counts (20 bytes) and two Vector3 (48).
  snapshot.trees.resize(in.Size(68));
  for (SimulationSnapshot::TreeState& tree : snapshot.trees) tree = ReadTree(&in);
  const size_t num_contacts = in.Size(2 * 4 + 11 * 8);
  snapshot.warm_start_contacts.resize(num_contacts);
  snapshot.warm_start_impulses_C.resize(num_contacts);
  for (size_t i = 0; i < num_contacts; ++i) {
    ContactPoint& c = snapshot.warm_start_contacts[i];
    c.geometry_a = in.Int();
    c.geometry_b = in.Int();
    c.p_W = in.Vector3();
    c.normal_W = in.Vector3();
    c.phi = in.Double();
    c.weight = in.Double();
    snapshot.warm_start_impulses_C[i] = in.Vector3();
  }
  snapshot.mocap_poses.resize(in.Size(12 * 8));
  for (Eigen::Isometry3d& X_WB : snapshot.mocap_poses) X_WB = in.Pose();
  if (!in.AtEnd()) in.Fail("bytes left over");
  return snapshot;
}

}  // namespace coulomb
