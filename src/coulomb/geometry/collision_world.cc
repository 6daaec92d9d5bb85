// The Coal adapter: the only translation unit that includes Coal.
#include "coulomb/geometry/collision_world.h"
#include "coulomb/geometry/box_separation.h"
#include "coulomb/geometry/closed_form_patch.h"
#include "coulomb/geometry/polytope_crossing.h"
#include "coulomb/geometry/segment_distance.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

#include <coal/collision.h>
#include <coal/contact_patch.h>
#include <coal/shape/convex.h>
#include <coal/shape/geometric_shapes.h>

#include "coulomb/geometry/sdf_collision.h"
#include "coulomb/geometry/static_box_tree.h"
#include "coulomb/geometry/sweep_and_prune.h"

namespace coulomb {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

std::shared_ptr<coal::CollisionGeometry> MakeCoalConvex(const ConvexHull& hull) {
  auto points = std::make_shared<std::vector<coal::Vec3s>>(hull.vertices.begin(),
                                                           hull.vertices.end());
  auto triangles = std::make_shared<std::vector<coal::Triangle>>();
  for (const auto& [a, b, c] : hull.triangles) {
    triangles->emplace_back(static_cast<coal::Triangle::index_type>(a),
                            static_cast<coal::Triangle::index_type>(b),
                            static_cast<coal::Triangle::index_type>(c));
  }
  return std::make_shared<coal::Convex<coal::Triangle>>(
      points, static_cast<unsigned int>(hull.vertices.size()), triangles,
      static_cast<unsigned int>(hull.triangles.size()));
}

std::shared_ptr<coal::CollisionGeometry> MakeCoalShape(const Shape& shape) {
  return std::visit(
      Overloaded{[](const Sphere& s) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Sphere>(s.radius);
                 },
                 [](const Box& b) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Box>(b.size.x(), b.size.y(), b.size.z());
                 },
                 [](const Capsule& c) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Capsule>(c.radius, c.length);
                 },
                 [](const Cylinder& c) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Cylinder>(c.radius, c.length);
                 },
                 [](const HalfSpace&) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Halfspace>(coal::Vec3s(0, 0, 1), 0.0);
                 },
                 [](const Ellipsoid& e) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Ellipsoid>(e.semi_axes);
                 },
                 [](const ConvexMesh& m) -> std::shared_ptr<coal::CollisionGeometry> {
                   return MakeCoalConvex(*m.hull);
                 },
                 [](const SdfShape&) -> std::shared_ptr<coal::CollisionGeometry> {
                   return nullptr;  // sdf_collision.h, not Coal
                 }},
      shape);
}

coal::Transform3s ToCoal(const Eigen::Isometry3d& pose) {
  return coal::Transform3s(pose.linear(), pose.translation());
}

// Curved shapes' patches are sampled with this many points (Coal's
// default), as the closed form samples a standing cylinder's rim.
constexpr size_t kCurvedPatchSamples = ClosedFormPatch::kRimSamples;
// Thickness of the contact plane for patches [m]: support points of both
// shapes within it form the manifold. Larger values would pull in points of
// neighbouring faces, whose distance the face-plane refinement gets wrong.
constexpr double kPatchTolerance = 1e-3;
// Two contacts of a tree's body with the world's geometry whose points and
// normals agree to this [m, and in the normal's components] are one.
constexpr double kRepeatedContact = 1e-9;

// How far each geometry may move, beyond its reach, before the broad phase
// sweeps again (CandidatePairs): a resting scene sweeps once in many steps,
// for a few more pairs through the tests after the sweep. (2 mm left the
// 40-body walled clutter sweeping in 436 of 1 000 steps, 10 mm saved less.)
constexpr double kBroadPhaseSlack = 5e-3;  // [m]
// Sweeps without slack after one whose slack went unused (UpdateSweptPairs).
constexpr int kSweepsWithoutSlack = 8;
// Kept off a pair's separating-axis gap when it is remembered (pair_histories),
// against the rounding of the odometers' sums [m].
constexpr double kOdometerRounding = 1e-9;

// The crossings below return the parameter t of a point p + t n on the
// line, or kLineMisses (polytope_crossing.h) when the line misses the surface.

// Where the line p + t n crosses a sphere of `radius` at the origin: the exit
// (side = +1) or entry (side = −1) parameter t.
double SphereCrossing(const Eigen::Vector3d& p, const Eigen::Vector3d& n, double radius,
                      double side) {
  const double b = p.dot(n);
  const double discriminant = b * b - (p.squaredNorm() - radius * radius);
  if (discriminant < 0) return kLineMisses;
  return -b + side * std::sqrt(discriminant);
}

// The same for the infinite cylinder of `radius` about z.
double SideCrossing(const Eigen::Vector3d& p, const Eigen::Vector3d& n, double radius,
                    double side) {
  const Eigen::Vector2d p_xy = p.head<2>(), n_xy = n.head<2>();
  const double a = n_xy.squaredNorm();
  if (a < 1e-24) return kLineMisses;
  const double b = p_xy.dot(n_xy) / a;
  const double discriminant = b * b - (p_xy.squaredNorm() - radius * radius) / a;
  if (discriminant < 0) return kLineMisses;
  return -b + side * std::sqrt(discriminant);
}

// A capsule is the union of its side (|z| ≤ L/2) and two end spheres: the
// exit from the union is the last exit of its parts, the entry the first.
double CapsuleCrossing(const Eigen::Vector3d& p, const Eigen::Vector3d& n,
                       const Capsule& capsule, double side) {
  double best = kLineMisses;
  const auto consider = [&](double t) {
    if (!std::isnan(t) && (std::isnan(best) || side * (t - best) > 0)) best = t;
  };
  const double t_side = SideCrossing(p, n, capsule.radius, side);
  if (!std::isnan(t_side) && std::abs(p.z() + t_side * n.z()) <= 0.5 * capsule.length)
    consider(t_side);
  for (double end : {-0.5, 0.5}) {
    const Eigen::Vector3d center(0, 0, end * capsule.length);
    consider(SphereCrossing(p - center, n, capsule.radius, side));
  }
  return best;
}

// Where the line p + t n crosses the plane x_axis = offset (in the frame of
// p and n): t = (offset − p_axis) / n_axis, kLineMisses when the line runs
// along the plane.
double AxisPlaneCrossing(const Eigen::Vector3d& p, const Eigen::Vector3d& n, int axis,
                         double offset) {
  if (std::abs(n[axis]) < 1e-12) return kLineMisses;
  return (offset - p[axis]) / n[axis];
}

// Where the line p + t n (G frame) crosses the surface of a shape other than
// a box, a half-space (those: CollisionWorld::Impl::SurfaceOf, a plane for
// a whole patch) or a convex mesh (PatchPolytopeCrossing): leaving it (`leaving`, the
// side facing along n) or entering it. For a sphere, the exact crossing. A cylinder uses
// its cap plane for flat contacts (like a box face, stable at the patch's corners, where
// a ray through a corner would graze edges) and its side surface otherwise; a capsule,
// the union of its side and end spheres. kLineMisses when the line misses the shape (the
// patch depth is kept).
double SurfaceCrossing(const Shape& shape, const Eigen::Vector3d& p,
                       const Eigen::Vector3d& n, bool leaving) {
  const double side = leaving ? 1.0 : -1.0;
  if (const auto* sphere = std::get_if<Sphere>(&shape)) {
    return SphereCrossing(p, n, sphere->radius, side);
  }
  if (const auto* cylinder = std::get_if<Cylinder>(&shape)) {
    // A flat (cap) contact uses the cap's plane, like a box face; otherwise
    // the side surface.
    const double axial = side * n.z();
    if (std::abs(axial) >= n.head<2>().norm()) {
      return AxisPlaneCrossing(p, n, 2, (axial >= 0 ? 0.5 : -0.5) * cylinder->length);
    }
    return SideCrossing(p, n, cylinder->radius, side);
  }
  if (const auto* capsule = std::get_if<Capsule>(&shape)) {
    return CapsuleCrossing(p, n, *capsule, side);
  }
  return kLineMisses;
}

// A pair (a, b) as the key a·2³² + b, which orders keys as the pairs,
// beside its place in a list of pairs.
struct PairKey {
  std::uint64_t key;
  int index;
};

// The places of `pairs` by increasing pair, into *order, when its first
// `sorted_run` are in order already: only the rest is sorted (by keys,
// without loading two pairs for every comparison, in *rest_keys) and then
// merged with them.
void OrderByPair(const std::vector<std::pair<int, int>>& pairs, int sorted_run,
                 std::vector<PairKey>* rest_keys, std::vector<int>* order) {
  const auto key = [](std::pair<int, int> pair) {
    return (static_cast<std::uint64_t>(pair.first) << 32) |
           static_cast<std::uint32_t>(pair.second);
  };
  const int count = static_cast<int>(pairs.size());
  rest_keys->clear();
  for (int k = sorted_run; k < count; ++k) rest_keys->push_back({key(pairs[k]), k});
  std::sort(rest_keys->begin(), rest_keys->end(),
            [](const PairKey& x, const PairKey& y) { return x.key < y.key; });
  order->clear();
  auto next_rest = rest_keys->begin();
  for (int k = 0; k < sorted_run; ++k) {
    const std::uint64_t head_key = key(pairs[k]);
    for (; next_rest != rest_keys->end() && next_rest->key < head_key; ++next_rest)
      order->push_back(next_rest->index);
    order->push_back(k);
  }
  for (; next_rest != rest_keys->end(); ++next_rest) order->push_back(next_rest->index);
}

// A contact of a tree's body with the world's geometry, in the order that
// puts repeats next to each other: by the two bodies (the world's body, the
// tree, the tree's body), then along x, then by its place in the contacts.
struct WorldContactKey {
  std::tuple<int, int, int> bodies;
  double x;
  int index;
  auto operator<=>(const WorldContactKey&) const = default;
};

}  // namespace

struct CollisionWorld::Impl {
  // A geometry's shape, in ours and Coal's form, and its pose in its body.
  struct Geometry {
    Shape our_shape;
    std::shared_ptr<coal::CollisionGeometry> shape;
    Eigen::Isometry3d X_BG;
  };
  std::vector<Geometry> geometries;
  // The rest of each geometry, what the broad phase reads, in a compact
  // array of its own (a Geometry spans several cache lines).
  struct BroadPhaseGeometry {
    Eigen::Vector3d half_extents;  // a box's; zero otherwise
    double bounding_radius;        // BoundingRadius(our_shape)
    int tree, body;
    bool box, half_space;
    bool mesh;  // a convex mesh
    // A convex mesh, cylinder, capsule or ellipsoid: a box around it in
    // hull_boxes, which HullBoxesGap tests before any narrow phase.
    bool in_hull_box;
    // A box whose thickness is less than its bounding radius (a wall, a
    // plank): its bounding sphere reaches far beyond it, and the broad phase
    // tests the box itself against the other geometry's sphere
    // (ThinBoxBallGap).
    bool thin_box;
  };
  std::vector<BroadPhaseGeometry> broad_phase;
  // A box around a geometry in its frame G, centre and half extents: a
  // convex mesh's around its hull's vertices, a cylinder's, capsule's or
  // ellipsoid's the smallest (per geometry; read where
  // broad_phase[g].in_hull_box).
  struct HullBox {
    Eigen::Vector3d center_G = Eigen::Vector3d::Zero();
    Eigen::Vector3d half_extents = Eigen::Vector3d::Zero();
  };
  std::vector<HullBox> hull_boxes;
  // The hull box of a convex mesh, cylinder, capsule or ellipsoid (each with
  // its axis along z); zero half extents for other shapes.
  static HullBox HullBoxOf(const Shape& shape) {
    if (const auto* mesh = std::get_if<ConvexMesh>(&shape)) {
      Eigen::AlignedBox3d extent;
      for (const Eigen::Vector3d& vertex : mesh->hull->vertices) extent.extend(vertex);
      return {extent.center(), 0.5 * extent.sizes()};
    }
    HullBox centred;
    if (const auto* cylinder = std::get_if<Cylinder>(&shape)) {
      centred.half_extents = {cylinder->radius, cylinder->radius, 0.5 * cylinder->length};
    } else if (const auto* capsule = std::get_if<Capsule>(&shape)) {
      centred.half_extents = {capsule->radius, capsule->radius,
                              0.5 * capsule->length + capsule->radius};
    } else if (const auto* ellipsoid = std::get_if<Ellipsoid>(&shape)) {
      centred.half_extents = ellipsoid->semi_axes;
    }
    return centred;
  }
  // A patch's mesh surfaces (SurfaceOf), entering and leaving, and per
  // geometry the triangle of its hull its last crossing went through, where
  // the next patch's walk starts.
  mutable std::array<PatchPolytopeCrossing, 2> polytope_crossings;
  mutable std::vector<int> walk_start_face;
  std::set<std::pair<int, int>> excluded;
  // By geometry; read only once some filter is not the default.
  std::vector<CollisionFilter> filters;
  bool any_filter = false;
  // Coal's narrow phase for one pair, kept from query to query: its GJK/EPA
  // workspace is then allocated once (coal::collide builds one per call).
  // With it, the pair's last GJK ray and support vertices when the pair was
  // apart, which start the next query's GJK near where the last one ended
  // (the poses change little from step to step): fewer GJK iterations. A
  // pair that collided starts from Coal's default guess: a ray from a
  // penetration left EPA's normal off by more than 1e-3 in a test against
  // the closed-form box patches.
  struct PairQuery {
    PairQuery(const coal::CollisionGeometry* a, const coal::CollisionGeometry* b)
        : collide(a, b), patch(a, b) {}
    coal::ComputeCollision collide;
    coal::ComputeContactPatch patch;
    bool has_guess = false;
    coal::Vec3s gjk_guess = coal::Vec3s::UnitX();
    coal::support_func_guess_t support_guess = coal::support_func_guess_t::Zero();
  };
  mutable std::unordered_map<std::int64_t, std::unique_ptr<PairQuery>> pair_queries;
  mutable coal::CollisionResult collision_result;
  mutable coal::ContactPatchResult patch_result;
  mutable ClosedFormPatch closed_form_patch;
  // Each geometry's body as one number (its tree and body), in the order
  // the bodies first came, for DropRepeatedWorldContacts.
  std::map<std::pair<int, int>, int> body_numbers;
  std::vector<int> body_number;
  // DropRepeatedWorldContacts' buffers, kept from step to step: by body
  // number, the first world geometry seen under the body and whether
  // another one was seen too, valid where the body's stamp is the call's
  // number (mark_calls).
  std::vector<int> first_world_geometry;
  std::vector<char> on_several_world_geometries;
  std::vector<std::uint64_t> mark_stamps;
  std::uint64_t mark_calls = 0;
  std::vector<WorldContactKey> world_contact_order;
  std::vector<char> repeated_contact;
  bool closed_form_patches = true;
  // Pairs with an SDF shape.
  mutable SdfCollision sdf_collision;
  int max_sdf_contacts = CollisionWorld::kDefaultMaxSdfContacts;

  PairQuery& Query(int a, int b) const {
    std::unique_ptr<PairQuery>& query =
        pair_queries[(static_cast<std::int64_t>(a) << 32) | static_cast<std::int64_t>(b)];
    if (!query) {
      query = std::make_unique<PairQuery>(geometries[a].shape.get(),
                                          geometries[b].shape.get());
    }
    return *query;
  }

  // Broad-phase state and buffers, reused from query to query. The static
  // geometries with finite bounds (is_fixed: a terrain's prisms, walls;
  // static_geometries) are in static_tree, built at the first query after
  // one was added; the others (swept_geometries) are swept at every sweep,
  // and each swept geometry on a tree asks static_tree for the static ones
  // near it. Both lists by increasing index, filled by AddGeometry.
  mutable StaticBoxTree static_tree;
  mutable bool static_tree_stale = false;
  std::vector<int> static_geometries, swept_geometries;
  mutable SweepAndPrune sweep_and_prune;
  // Per swept geometry (by its place in swept_geometries): its box
  // (BoundsOf), its bounding radius + allowance, and whether it is on no
  // tree (a half-space of the world, a kinematic body's geometry), as the
  // sweep leaves out pairs of two such, as Skip does.
  mutable std::vector<Eigen::AlignedBox3d> bounds;
  mutable std::vector<double> radii;
  mutable std::vector<char> fixed;
  mutable std::vector<std::pair<int, int>> sweep_pairs;  // places in swept_geometries
  // Per geometry, GeometryMotion::reach() and turn (the static ones keep 0).
  mutable std::vector<double> reaches;
  mutable std::vector<double> turns;
  // The last sweep's pairs (Sweep), and each geometry's pose and
  // allowance at that sweep. One never set allows nothing (Within is false).
  struct SweptPose {
    Eigen::Vector3d translation = Eigen::Vector3d::Zero();
    Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
    // Its reach then + the sweep's slack [m].
    double allowance = -std::numeric_limits<double>::infinity();
  };
  mutable std::vector<SweptPose> swept_poses;
  mutable std::vector<std::pair<int, int>> swept_pairs;
  // Per swept pair, its rank, increasing along swept_pairs: those of the
  // sweep, sorted, first, by a · 2³¹ + b; then those of a geometry g on a
  // tree and a static one (AddStaticPairs), by 2⁶² + g · 2³¹ + the static
  // one's place in static_tree.
  mutable std::vector<std::uint64_t> swept_pair_ranks;
  // Per swept pair, what the last queries found: apart while the two
  // geometries' odometers plus its margin stay below `apart_limit` (−∞: not
  // known to be apart); whether the last query kept it (a candidate: its
  // hull boxes' test is then skipped, SeparatingAxisGap); and for a box or
  // capsule with a small polytope, where its separating axes' winner is
  // kept in axis_memories (−1: none yet; few pairs reach that test).
  struct PairHistory {
    double apart_limit = -std::numeric_limits<double>::infinity();
    bool kept = false;
    int axis_memory = -1;
  };
  // Per swept geometry on a tree (by place in swept_geometries), its last
  // query of static_tree: the pose and allowance it was made at (its reach
  // then + kBroadPhaseSlack), the margin, and where its finds, (static id,
  // place), lie in static_finds. They hold while the geometry stays within
  // that allowance (Within), whatever the others do; the previous sweep's
  // finds are in last_static_finds.
  struct StaticQuery {
    SweptPose pose;
    double margin = std::numeric_limits<double>::quiet_NaN();  // NaN: none
    int first = 0, count = 0;
  };
  mutable std::vector<StaticQuery> static_queries;
  mutable std::vector<std::pair<int, int>> static_finds, last_static_finds;
  mutable std::vector<PairHistory> pair_histories;
  mutable std::vector<BoxPolytopeAxisMemory> axis_memories;
  // The sweep before's pairs, histories and memories (CarryPairHistories).
  mutable std::vector<std::pair<int, int>> last_swept_pairs;
  mutable std::vector<std::uint64_t> last_swept_pair_ranks;
  mutable std::vector<PairHistory> last_pair_histories;
  mutable std::vector<BoxPolytopeAxisMemory> last_axis_memories;
  // Per geometry, how far its points have travelled at most
  // (UpdateOdometers), and per swept geometry its pose at the last query.
  mutable std::vector<double> odometers;
  mutable std::vector<Eigen::Isometry3d> odometer_poses;
  mutable double swept_margin = std::numeric_limits<double>::quiet_NaN();
  mutable bool swept_with_slack = false;
  mutable bool swept_pairs_reused = false;  // by a later step
  mutable int slack_pause = 0;              // sweeps left without slack
  mutable std::vector<std::pair<int, int>> candidates;
  // Per kept candidate: the separating axis of a box–box pair (complete:
  // the pair was not dropped), for the narrow phase.
  mutable std::vector<BoxSeparation> candidate_separations;
  // The candidates, and so the contacts, come by increasing pair (a, b):
  // the swept pairs visited in swept_pair_order (use_swept_order), or in
  // their own order and the candidates sorted after (sort_candidates),
  // whichever OrderSweptPairs found to sort fewer pairs; the buffers of the
  // sorts (OrderByPair, SortCandidates).
  mutable std::vector<int> swept_pair_order, candidate_order;
  mutable bool use_swept_order = false, sort_candidates = false;
  mutable std::vector<PairKey> rest_keys;
  mutable std::vector<std::pair<int, int>> sorted_candidates;
  mutable std::vector<BoxSeparation> sorted_separations;

  // Pairs that may be within margin, by (a, b): sweep and prune on
  // axis-aligned boxes and bounding spheres grown by each geometry's reach
  // (SweptPairsHold: by the last sweep's, while it holds), then a half-space
  // against the other's bounding sphere (FarFromHalfSpace; the sweep pairs a
  // half-space with everything), a thin box against the other's bounding
  // sphere (ThinBoxBallGap), the swept-sphere test and the separating axes of
  // boxes and small polytopes (SeparatingAxisGap). A gap of the thin box's
  // test or of the separating axes, once it exceeds the pair's margin, keeps
  // the pair apart until the two geometries have travelled it
  // (pair_histories).
  const std::vector<std::pair<int, int>>& CandidatePairs(
      const std::vector<Eigen::Isometry3d>& X_WG, double margin,
      const std::vector<GeometryMotion>& motion) const {
    if (static_tree_stale) BuildStaticTree(X_WG);
    for (const int g : swept_geometries) {
      reaches[g] = motion.empty() ? 0.0 : motion[g].reach();
      turns[g] = motion.empty() ? 0.0 : motion[g].turn;
    }
    UpdateOdometers(X_WG);
    UpdateSweptPairs(X_WG, margin);
    candidates.clear();
    candidate_separations.clear();
    for (size_t place = 0; place < swept_pairs.size(); ++place) {
      const size_t k = use_swept_order ? swept_pair_order[place] : place;
      const auto [a, b] = swept_pairs[k];
      const double pair_margin = PairMargin(margin, a, b);
      const double travelled = odometers[a] + odometers[b];
      PairHistory& history = pair_histories[k];
      if (Skip(a, b) || travelled + pair_margin < history.apart_limit ||
          FarFromHalfSpace(a, b, X_WG, pair_margin)) {
        continue;
      }
      const double ball_gap =
          std::max(ThinBoxBallGap(a, b, X_WG), ThinBoxBallGap(b, a, X_WG));
      if (ball_gap > pair_margin) {
        history.apart_limit = ball_gap + travelled - kOdometerRounding;
        continue;
      }
      if (SweptApart(a, b, X_WG, motion, margin)) continue;
      BoxSeparation separation;
      const double gap =
          SeparatingAxisGap(a, b, X_WG, pair_margin, &history, &separation);
      history.kept = !(gap > pair_margin);
      if (!history.kept) {
        history.apart_limit = gap + travelled - kOdometerRounding;
        continue;
      }
      candidates.emplace_back(a, b);
      candidate_separations.push_back(separation);
    }
    if (sort_candidates) SortCandidates();
    return candidates;
  }

  // candidates (and candidate_separations with them) by increasing pair.
  void SortCandidates() const {
    const int sorted_run = static_cast<int>(
        std::is_sorted_until(candidates.begin(), candidates.end()) - candidates.begin());
    if (sorted_run == static_cast<int>(candidates.size())) return;
    OrderByPair(candidates, sorted_run, &rest_keys, &candidate_order);
    sorted_candidates.clear();
    sorted_separations.clear();
    for (const int k : candidate_order) {
      sorted_candidates.push_back(candidates[k]);
      sorted_separations.push_back(candidate_separations[k]);
    }
    candidates.swap(sorted_candidates);
    candidate_separations.swap(sorted_separations);
  }

  // How the candidates will come by increasing pair, as the time stepper
  // matches the contacts to the last step's by pair. The sweep's first
  // `num_sweep_pairs` come sorted (SweepAndPrune::FindCandidatePairs) and
  // those with a static geometry after them: when these break the order,
  // either they are sorted now, once for the sweep (swept_pair_order), or
  // each step's candidates are sorted, whichever sorts fewer pairs (the
  // walled clutter has a few static pairs, a height field thousands).
  void OrderSweptPairs(size_t num_sweep_pairs) const {
    const int count = static_cast<int>(swept_pairs.size());
    const auto last_of_sweep =
        swept_pairs.begin() + (num_sweep_pairs > 0 ? num_sweep_pairs - 1 : 0);
    const int sorted_run = static_cast<int>(
        std::is_sorted_until(last_of_sweep, swept_pairs.end()) - swept_pairs.begin());
    const bool in_order = sorted_run == count;
    use_swept_order =
        !in_order && count - sorted_run <= static_cast<int>(candidates.size());
    sort_candidates = !in_order && !use_swept_order;
    if (use_swept_order)
      OrderByPair(swept_pairs, sorted_run, &rest_keys, &swept_pair_order);
  }

  // Adds to each swept geometry's odometer how far any of its points moved
  // since the last query, at most |p − p₀| + ‖R − R₀‖_F r (r its bounding
  // radius about its origin: ‖(R − R₀) x‖ ≤ ‖R − R₀‖_F ‖x‖). Two geometries
  // a gap d apart are then at least d − (travelled since) apart: a pair
  // whose separating-axis gap exceeded its margin stays apart, untested,
  // while the sum of its odometers grows by less than that excess. (A
  // half-space is paired by FarFromHalfSpace, never by a gap; its odometer
  // counts its translation alone.)
  void UpdateOdometers(const std::vector<Eigen::Isometry3d>& X_WG) const {
    odometers.resize(geometries.size(), 0.0);
    // Geometries added since the last query start where they are.
    for (size_t k = odometer_poses.size(); k < swept_geometries.size(); ++k)
      odometer_poses.push_back(X_WG[swept_geometries[k]]);
    for (size_t k = 0; k < swept_geometries.size(); ++k) {
      const int g = swept_geometries[k];
      Eigen::Isometry3d& last = odometer_poses[k];
      double moved = (X_WG[g].translation() - last.translation()).norm();
      if (!broad_phase[g].half_space)
        moved +=
            (X_WG[g].linear() - last.linear()).norm() * broad_phase[g].bounding_radius;
      odometers[g] += moved;
      last = X_WG[g];
    }
  }

  // A lower bound on the distance between a and b from separating axes: two
  // boxes', or the boxes around any two of boxes, convex meshes, cylinders,
  // capsules and ellipsoids (HullBoxesGap), a box or a capsule against a small polytope
  // (SmallPolytopeGap, with the pair's axis memory), a symmetric shape
  // against a small polytope (SymmetricShapePolytopeGap); −∞ where none
  // applies. A pair the last query kept, likely to be kept again, takes the
  // hull boxes' test only where no polytope test applies. Each stops at the first axis
  // beyond `margin`; a pair it does not drop has its best axis in `separation` (two
  // boxes, a small polytope), for the closed-form patch.
  double SeparatingAxisGap(int a, int b, const std::vector<Eigen::Isometry3d>& X_WG,
                           double margin, PairHistory* history,
                           BoxSeparation* separation) const {
    const BroadPhaseGeometry& ga = broad_phase[a];
    const BroadPhaseGeometry& gb = broad_phase[b];
    if (ga.box && gb.box) {
      *separation = BoxSeparatingAxis(X_WG[a], ga.half_extents, X_WG[b], gb.half_extents,
                                      ClosedFormPatch::kEdgeAxisBias, margin);
      return separation->separation;
    }
    constexpr double kNone = -std::numeric_limits<double>::infinity();
    const double hull_gap = history->kept ? kNone : HullBoxesGap(a, b, X_WG, margin);
    if (hull_gap > margin) return hull_gap;
    if (!ga.mesh && !gb.mesh)  // no polytope's axes to try
      return history->kept ? HullBoxesGap(a, b, X_WG, margin) : hull_gap;
    double polytope_gap = SmallPolytopeGap(a, b, X_WG, margin, history, separation);
    if (polytope_gap == kNone)
      polytope_gap = SymmetricShapePolytopeGap(a, b, X_WG, margin);
    if (polytope_gap == kNone && history->kept) return HullBoxesGap(a, b, X_WG, margin);
    return std::max(hull_gap, polytope_gap);
  }

  // A lower bound on the distance of a sphere, cylinder or ellipsoid from a
  // small polytope, over the polytope's face normals (PolytopeFaceGap) and,
  // when they leave it within the margin, the axis from the polytope's
  // point nearest the shape's centre (PolytopeCentreAxisGap: the shape
  // beyond an edge or a vertex); −∞ for other pairs.
  double SymmetricShapePolytopeGap(int a, int b,
                                   const std::vector<Eigen::Isometry3d>& X_WG,
                                   double margin) const {
    for (const auto& [other, polytope] : {std::pair{a, b}, std::pair{b, a}}) {
      PosedPolytope placed;
      if (broad_phase[polytope].mesh && !broad_phase[other].mesh &&
          PlacePolytope(*std::get<ConvexMesh>(geometries[polytope].our_shape).hull,
                        X_WG[polytope], &placed)) {
        const Shape& shape = geometries[other].our_shape;
        const double face_gap = PolytopeFaceGap(shape, X_WG[other], placed, margin);
        if (face_gap > margin) return face_gap;
        return std::max(face_gap, PolytopeCentreAxisGap(shape, X_WG[other], placed));
      }
    }
    return -std::numeric_limits<double>::infinity();
  }

  // swept_pairs for these poses: the last sweep's while they hold, a new
  // sweep otherwise. A sweep whose slack went unused (the next step swept
  // again: bodies in flight) pauses the slack for kSweepsWithoutSlack
  // sweeps, which then sweep every step without the check.
  void UpdateSweptPairs(const std::vector<Eigen::Isometry3d>& X_WG, double margin) const {
    if (slack_pause == 0 && SweptPairsHold(X_WG, margin)) {
      swept_pairs_reused = true;
      return;
    }
    if (slack_pause > 0) {
      --slack_pause;
    } else if (swept_with_slack && !swept_pairs_reused) {
      slack_pause = kSweepsWithoutSlack;
    }
    Sweep(X_WG, margin, slack_pause > 0 ? 0.0 : kBroadPhaseSlack);
  }

  // Sweep and prune on each geometry's box and sphere grown by its reach
  // plus `slack`, its allowance, into swept_pairs.
  void Sweep(const std::vector<Eigen::Isometry3d>& X_WG, double margin,
             double slack) const {
    const size_t num_swept = swept_geometries.size();
    bounds.resize(num_swept);
    radii.resize(num_swept);
    fixed.resize(num_swept);
    for (size_t k = 0; k < num_swept; ++k) {
      const int g = swept_geometries[k];
      const double allowance = reaches[g] + slack;
      bounds[k] = BoundsOf(g, X_WG[g], allowance);
      radii[k] = broad_phase[g].bounding_radius + allowance;
      fixed[k] = broad_phase[g].tree < 0;
    }
    sweep_and_prune.FindCandidatePairs(bounds, radii, margin, &sweep_pairs, fixed);
    swept_pairs.swap(last_swept_pairs);
    swept_pair_ranks.swap(last_swept_pair_ranks);
    pair_histories.swap(last_pair_histories);
    axis_memories.swap(last_axis_memories);
    swept_pairs.clear();
    swept_pair_ranks.clear();
    for (const auto& [i, j] : sweep_pairs) {  // increasing places: increasing indices
      const int a = swept_geometries[i], b = swept_geometries[j];
      swept_pairs.emplace_back(a, b);
      swept_pair_ranks.push_back(std::uint64_t{static_cast<std::uint32_t>(a)} << 31 |
                                 static_cast<std::uint32_t>(b));
    }
    AddStaticPairs(X_WG, margin);
    CarryPairHistories();
    OrderSweptPairs(sweep_pairs.size());
    swept_with_slack = slack > 0.0;
    // Without slack the poses are not kept: SweptPairsHold is not asked
    // before the next sweep with slack.
    swept_margin = swept_with_slack ? margin : std::numeric_limits<double>::quiet_NaN();
    if (swept_with_slack) {
      swept_poses.resize(geometries.size());
      for (const int g : swept_geometries)
        swept_poses[g] = {X_WG[g].translation(), X_WG[g].linear(), reaches[g] + slack};
    }
    swept_pairs_reused = false;
  }

  // pair_histories and axis_memories for the new swept_pairs: a pair the
  // last sweep had too keeps them (the odometers do not start again), a new
  // one has none; the memories of pairs no longer swept are dropped. Both
  // lists of pairs are by increasing rank (swept_pair_ranks).
  void CarryPairHistories() const {
    pair_histories.assign(swept_pairs.size(), PairHistory{});
    axis_memories.clear();
    size_t last = 0;
    for (size_t k = 0; k < swept_pairs.size(); ++k) {
      const std::uint64_t rank = swept_pair_ranks[k];
      while (last < last_swept_pair_ranks.size() && last_swept_pair_ranks[last] < rank)
        ++last;
      if (last == last_swept_pair_ranks.size() || last_swept_pair_ranks[last] != rank)
        continue;
      PairHistory& history = pair_histories[k];
      history = last_pair_histories[last];
      if (history.axis_memory >= 0) {
        axis_memories.push_back(last_axis_memories[history.axis_memory]);
        history.axis_memory = static_cast<int>(axis_memories.size()) - 1;
      }
    }
  }

  // static_tree over static_geometries at their poses X_WG, without reach.
  void BuildStaticTree(const std::vector<Eigen::Isometry3d>& X_WG) const {
    std::vector<Eigen::AlignedBox3d> boxes;
    std::vector<double> radii_of_static;
    for (const int g : static_geometries) {
      boxes.push_back(BoundsOf(g, X_WG[g], 0.0));
      radii_of_static.push_back(broad_phase[g].bounding_radius);
    }
    static_tree.Build(boxes, radii_of_static, static_geometries);
    static_queries.clear();  // the places have changed
    static_tree_stale = false;
  }

  // Appends to swept_pairs, with their ranks, the pairs of a swept geometry
  // on a tree and a static one that the sweep would have found, but for the
  // static one's slack: a geometry that does not move needs none for the
  // pairs to hold (SweptPairsHold). A geometry still within the allowance of
  // its last query of static_tree keeps what that query found.
  void AddStaticPairs(const std::vector<Eigen::Isometry3d>& X_WG, double margin) const {
    constexpr std::uint64_t kStaticPairs = std::uint64_t{1} << 62;
    static_queries.resize(swept_geometries.size());
    static_finds.swap(last_static_finds);
    static_finds.clear();
    for (size_t k = 0; k < swept_geometries.size(); ++k) {
      const int g = swept_geometries[k];
      if (broad_phase[g].tree < 0) continue;  // fixed: meets no static geometry
      StaticQuery& query = static_queries[k];
      const int first = static_cast<int>(static_finds.size());
      if (query.margin == margin && Within(g, X_WG[g], query.pose)) {
        static_finds.insert(static_finds.end(), last_static_finds.begin() + query.first,
                            last_static_finds.begin() + query.first + query.count);
      } else {
        const double allowance = reaches[g] + kBroadPhaseSlack;
        query.pose = {X_WG[g].translation(), X_WG[g].linear(), allowance};
        query.margin = margin;
        static_tree.ForEachNear(
            BoundsOf(g, X_WG[g], allowance), broad_phase[g].bounding_radius + allowance,
            margin, [&](int s, int place) { static_finds.emplace_back(s, place); });
      }
      query.first = first;
      query.count = static_cast<int>(static_finds.size()) - first;
      const std::uint64_t of_g =
          kStaticPairs | std::uint64_t{static_cast<std::uint32_t>(g)} << 31;
      for (int f = first; f < first + query.count; ++f) {
        const auto [s, place] = static_finds[f];
        swept_pairs.emplace_back(std::min(g, s), std::max(g, s));
        swept_pair_ranks.push_back(of_g | static_cast<std::uint32_t>(place));
      }
    }
  }

  // True when the last sweep's pairs hold every pair a sweep at these poses
  // and reaches would find. Geometry g's box |R_WG| h + reach (BoundsOf)
  // stays within the one swept, |R₀| h + allowance about p₀, while
  //   |p − p₀| + ‖R − R₀‖_F |h| + reach ≤ allowance,
  // since each entry of |R| h − |R₀| h is at most the row of R − R₀ times h;
  // its sphere, centred on p, then stays within the swept one too. A pair
  // the sweep would find now (boxes and spheres within margin) was found
  // then. The bound is kept 1e-9 m short of the allowance against rounding.
  bool SweptPairsHold(const std::vector<Eigen::Isometry3d>& X_WG, double margin) const {
    if (swept_poses.size() != geometries.size() || margin != swept_margin ||
        static_queries.size() != swept_geometries.size()) {
      return false;
    }
    for (size_t k = 0; k < swept_geometries.size(); ++k) {
      const int g = swept_geometries[k];        // static geometries do not move
      if (broad_phase[g].half_space) continue;  // paired with every geometry
      if (!Within(g, X_WG[g], swept_poses[g])) return false;
      // Its static pairs may come from an earlier query (AddStaticPairs).
      if (broad_phase[g].tree >= 0 && !Within(g, X_WG[g], static_queries[k].pose))
        return false;
    }
    return true;
  }

  // Whether geometry g at X_WG, grown by its reach, stays within its box
  // and sphere at `swept`, grown by that one's allowance (SweptPairsHold);
  // false for a pose never set (allowance −∞) and for NaN.
  bool Within(int g, const Eigen::Isometry3d& X_WG, const SweptPose& swept) const {
    const BroadPhaseGeometry& geometry = broad_phase[g];
    double moved = (X_WG.translation() - swept.translation).norm() + reaches[g];
    if (geometry.box) {
      // bounding_radius = ½‖size‖ = ‖h‖ bit for bit (halving is exact)
      moved += (X_WG.linear() - swept.rotation).norm() * geometry.bounding_radius;
    }
    return moved <= swept.allowance - 1e-9;
  }

  // The axis-aligned box around geometry g at pose X_WG, grown by `reach`: a
  // box's own extent |R_WG| h (tight for the walls of an arena, whose
  // bounding spheres reach across it), the bounding sphere's cube for other
  // shapes, all of space for a half-space.
  Eigen::AlignedBox3d BoundsOf(size_t g, const Eigen::Isometry3d& X_WG,
                               double reach) const {
    const BroadPhaseGeometry& geometry = broad_phase[g];
    const Eigen::Vector3d extent =
        geometry.box ? Eigen::Vector3d(X_WG.linear().cwiseAbs() * geometry.half_extents)
                     : Eigen::Vector3d::Constant(geometry.bounding_radius);
    const Eigen::Vector3d grown = extent.array() + reach;
    return {X_WG.translation() - grown, X_WG.translation() + grown};
  }

  // margin + reach_a + reach_b: the most the pair's gap may close (the
  // reaches of the last CandidatePairs).
  double PairMargin(double margin, int a, int b) const {
    return margin + reaches[a] + reaches[b];
  }

  // margin + 2 (turn_a + turn_b): the most that a point of the pair may
  // close on another's gap (both translate alike; over the look-ahead each
  // point of a geometry turns by at most its turn about the body's origin).
  // A closed-form patch's far point further above its deepest one cannot
  // meet the other shape before that one does.
  double FarPointReach(double margin, int a, int b) const {
    return margin + 2.0 * (turns[a] + turns[b]);
  }

  // True when the bounding spheres, each swept along its own translation
  // and grown by its turn, stay more than `margin` apart: wherever along its
  // path either geometry stops, they cannot meet.
  bool SweptApart(int a, int b, const std::vector<Eigen::Isometry3d>& X_WG,
                  const std::vector<GeometryMotion>& motion, double margin) const {
    if (motion.empty()) return false;
    const BroadPhaseGeometry& ga = broad_phase[a];
    const BroadPhaseGeometry& gb = broad_phase[b];
    if (!std::isfinite(ga.bounding_radius) || !std::isfinite(gb.bounding_radius))
      return false;  // a half-space: FarFromHalfSpace's test along its normal
    const double reach = ga.bounding_radius + gb.bounding_radius + motion[a].turn +
                         motion[b].turn + margin;
    // The segments are no farther apart than their starting points: a pair
    // that starts within reach (any pair at rest in contact) needs no
    // segment distance.
    const Eigen::Vector3d& start_a = X_WG[a].translation();
    const Eigen::Vector3d& start_b = X_WG[b].translation();
    if ((start_a - start_b).squaredNorm() <= reach * reach) return false;
    return SegmentDistance(start_a, motion[a].translation, start_b,
                           motion[b].translation) > reach;
  }

  // One geometry's surface along a patch's normal lines p + t n (n shared by
  // the patch's points). For a box, the face whose outward normal ±e_axis is
  // closest to side · n (side = 1 where the line leaves the box, −1 where it
  // enters), and for a half-space its top face: the crossing with the face's
  // plane, exact on face contacts and stable at the patch's corners, where a
  // ray through a corner would graze edges. That plane is the same for every
  // point of the patch: the world plane u · x = c, crossed at
  // t = (c − u · p)/(u · n), a dot product per point. A convex mesh is
  // crossed point by point through the faces the patch's lines can cross
  // (PatchPolytopeCrossing), other shapes in closed form (SurfaceCrossing),
  // in their frame.
  struct SurfaceAlongNormal {
    const Shape* shape = nullptr;  // null: the plane u · x = c
    const Eigen::Isometry3d* X_WG = nullptr;
    Eigen::Vector3d n_G = Eigen::Vector3d::Zero();  // R_WGᵀ n
    bool leaving = false;
    Eigen::Vector3d u = Eigen::Vector3d::Zero();
    double c = 0.0;
    double inverse_slope = kLineMisses;  // 1/(u · n); NaN: the line runs along the plane
    // A convex mesh: its crossings, walked over its hull (its geometry g).
    PatchPolytopeCrossing* polytope = nullptr;
    int g = -1;

    double CrossingAt(const Eigen::Vector3d& p_W) const {
      if (shape == nullptr) return (c - u.dot(p_W)) * inverse_slope;
      // R_WGᵀ (p − p_WG), written out: Isometry3d::inverse() forms a 4 × 4
      // temporary.
      const Eigen::Vector3d p_G =
          X_WG->linear().transpose() * (p_W - X_WG->translation());
      if (polytope != nullptr) return polytope->At(p_G);
      return SurfaceCrossing(*shape, p_G, n_G, leaving);
    }
  };

  // Geometry g's surface along n: leaving it (`leaving`, the side facing
  // along n) or entering it. Boxes and half-spaces from the compact
  // broad-phase record, without touching the Geometry (its shape variant and
  // Coal's shape span cache lines).
  SurfaceAlongNormal SurfaceOf(int g, const Eigen::Isometry3d& X_WG,
                               const Eigen::Vector3d& n, bool leaving) const {
    SurfaceAlongNormal surface;
    surface.X_WG = &X_WG;
    surface.n_G = X_WG.linear().transpose() * n;
    surface.leaving = leaving;
    const BroadPhaseGeometry& record = broad_phase[g];
    const Eigen::Vector3d& n_G = surface.n_G;
    int axis = 2;
    double offset = 0.0;  // the plane x_axis = offset in G
    if (record.box) {
      axis = 0;
      for (int k = 1; k < 3; ++k) {
        if (std::abs(n_G[k]) > std::abs(n_G[axis])) axis = k;
      }
      const double side = leaving ? 1.0 : -1.0;
      offset = (side * n_G[axis] >= 0 ? 1.0 : -1.0) * record.half_extents[axis];
    } else if (!record.half_space) {  // a half-space: its top face z = 0
      surface.shape = &geometries[g].our_shape;
      if (const auto* mesh = std::get_if<ConvexMesh>(surface.shape)) {
        PatchPolytopeCrossing& polytope = polytope_crossings[leaving];
        polytope.Prepare(*mesh->hull, n_G, leaving, walk_start_face[g]);
        surface.polytope = &polytope;
        surface.g = g;
      }
      return surface;
    }
    surface.u = X_WG.linear().col(axis);
    surface.c = offset + surface.u.dot(X_WG.translation());
    if (std::abs(n_G[axis]) >= 1e-12) surface.inverse_slope = 1.0 / n_G[axis];
    return surface;
  }

  // Replaces the patch-wide depth by the gap between the two surfaces along
  // the normal line through the point, where both shapes allow it: A's
  // surface where the line leaves A (going along n), B's where it enters B.
  // The gap cannot be deeper than the pair's overlap along the normal (the
  // patch's depth): a deeper one comes from a line that leaves through a far
  // face near an edge (seen: 0.14 m between two resting boxes that touch by
  // their sides). Nor can it be wider than the patch's depth by more than
  // twice the patch's tolerance (the patch's points come from the support
  // sets of A and of B, each within the tolerance of its extreme plane): a
  // wider one comes from a line that misses a polytope's faces (seen: +17
  // mm for two link hulls 26 mm into each other, which lost their
  // contact). Either way the patch's depth is kept.
  static void RefineAlongNormal(const SurfaceAlongNormal& surface_a,
                                const SurfaceAlongNormal& surface_b,
                                ContactPoint* contact) {
    const Eigen::Vector3d& p = contact->p_W;
    const double crossing_a = surface_a.CrossingAt(p);
    const double crossing_b = surface_b.CrossingAt(p);
    if (std::isnan(crossing_a) || std::isnan(crossing_b)) return;
    const double gap = crossing_b - crossing_a;
    if (!(gap >= contact->phi - kPatchTolerance &&
          gap <= contact->phi + 2 * kPatchTolerance))
      return;
    contact->phi = gap;
    contact->p_W = p + 0.5 * (crossing_a + crossing_b) * contact->normal_W;
  }

  // True when one of the pair is a half-space and the other's bounding
  // sphere stays more than `margin` above it, so the pair cannot be in
  // contact. (The sweep pairs a half-space with everything; two bounded
  // geometries it has tested by their bounding spheres already.)
  bool FarFromHalfSpace(int a, int b, const std::vector<Eigen::Isometry3d>& X_WG,
                        double margin) const {
    const BroadPhaseGeometry& ga = broad_phase[a];
    const BroadPhaseGeometry& gb = broad_phase[b];
    const bool half_a = ga.half_space, half_b = gb.half_space;
    if (half_a == half_b) return false;  // neither, or two half-spaces
    const Eigen::Isometry3d& X_WH = half_a ? X_WG[a] : X_WG[b];
    const BroadPhaseGeometry& other = half_a ? gb : ga;
    const Eigen::Vector3d& center = (half_a ? X_WG[b] : X_WG[a]).translation();
    const double height = X_WH.linear().col(2).dot(center - X_WH.translation());
    return height - other.bounding_radius > margin;
  }

  // A lower bound on the distance from the thin box `box` to geometry
  // `other`, inside its bounding sphere (centre c, radius r): the distance
  // from c to the box, ‖max(|R_WBᵀ (c − p_WB)| − h, 0)‖, less r; −∞ unless
  // `box` is a thin box and `other` bounded. A wall's bounding sphere reaches
  // most of the arena; its box does not. (For a cube the spheres' test drops
  // nearly as many pairs.)
  double ThinBoxBallGap(int box, int other,
                        const std::vector<Eigen::Isometry3d>& X_WG) const {
    const BroadPhaseGeometry& g_box = broad_phase[box];
    const BroadPhaseGeometry& g_other = broad_phase[other];
    if (!g_box.thin_box || !std::isfinite(g_other.bounding_radius))
      return -std::numeric_limits<double>::infinity();
    const Eigen::Isometry3d& X_WB = X_WG[box];
    const Eigen::Vector3d center_B =
        X_WB.linear().transpose() * (X_WG[other].translation() - X_WB.translation());
    const Eigen::Vector3d outside =
        (center_B.cwiseAbs() - g_box.half_extents).cwiseMax(0.0);
    return outside.norm() - g_other.bounding_radius;
  }

  // A lower bound on the distance of a pair of boxes or geometries in a hull
  // box (a convex mesh, cylinder, capsule or ellipsoid), from a separating
  // axis of their boxes, stopped at the first beyond `margin`; −∞ for other
  // pairs (two boxes are SeparatingAxisGap's own). Each box encloses its
  // geometry, so the bound holds for the geometries. A robot's links, whose
  // bounding spheres overlap about their joints, are mostly told apart here.
  double HullBoxesGap(int a, int b, const std::vector<Eigen::Isometry3d>& X_WG,
                      double margin) const {
    const BroadPhaseGeometry& ga = broad_phase[a];
    const BroadPhaseGeometry& gb = broad_phase[b];
    if (!(ga.in_hull_box || ga.box) || !(gb.in_hull_box || gb.box))
      return -std::numeric_limits<double>::infinity();
    const auto box_of = [&](int g, Eigen::Isometry3d* X_WO) {
      *X_WO = X_WG[g];
      if (!broad_phase[g].in_hull_box) return broad_phase[g].half_extents;
      X_WO->translation() += X_WG[g].linear() * hull_boxes[g].center_G;
      return hull_boxes[g].half_extents;
    };
    Eigen::Isometry3d X_WA, X_WB;
    const Eigen::Vector3d half_a = box_of(a, &X_WA);
    const Eigen::Vector3d half_b = box_of(b, &X_WB);
    return BoxSeparationLowerBound(X_WA, half_a, X_WB, half_b, margin);
  }

  // Of a pair of a box or a capsule and a small convex polytope (a height
  // field's prism, polytope_separation.h), the box or capsule and the
  // polytope (both −1 for other pairs), and the polytope placed (its
  // vertices posed too with `pose_vertices`).
  std::pair<int, int> SmallPolytopePair(int a, int b,
                                        const std::vector<Eigen::Isometry3d>& X_WG,
                                        bool pose_vertices, PosedPolytope* posed) const {
    for (const auto& [other, polytope] : {std::pair{a, b}, std::pair{b, a}}) {
      const Shape& shape = geometries[other].our_shape;
      if ((std::holds_alternative<Box>(shape) ||
           std::holds_alternative<Capsule>(shape)) &&
          broad_phase[polytope].mesh &&
          (pose_vertices ? PosePolytope : PlacePolytope)(
              *std::get<ConvexMesh>(geometries[polytope].our_shape).hull, X_WG[polytope],
              posed)) {
        return {other, polytope};
      }
    }
    return {-1, -1};
  }

  // A lower bound on the distance of a box or a capsule from a small convex
  // polytope, from their separating axes (a capsule's core segment's, less
  // its radius), stopped at the first beyond `margin`; −∞ for other pairs. A
  // pair not dropped has its best axis (from the box or capsule into the
  // polytope, of the core for a capsule) in `separation`, for the
  // closed-form patch. The axes' winner is kept for the pair's next test
  // (its history's axis memory).
  double SmallPolytopeGap(int a, int b, const std::vector<Eigen::Isometry3d>& X_WG,
                          double margin, PairHistory* history,
                          BoxSeparation* separation) const {
    PosedPolytope posed;
    const int other =
        SmallPolytopePair(a, b, X_WG, /*pose_vertices=*/false, &posed).first;
    if (other < 0) return -std::numeric_limits<double>::infinity();
    if (history->axis_memory < 0) {
      history->axis_memory = static_cast<int>(axis_memories.size());
      axis_memories.emplace_back();
    }
    const auto* capsule = std::get_if<Capsule>(&geometries[other].our_shape);
    const double radius = capsule ? capsule->radius : 0.0;
    *separation = BoxPolytopeSeparatingAxis(
        X_WG[other],
        capsule ? CapsuleCoreHalfExtents(*capsule) : broad_phase[other].half_extents,
        posed, ClosedFormPatch::kEdgeAxisBias, margin + radius,
        &axis_memories[history->axis_memory]);
    return separation->separation - radius;
  }

  // The closed-form patch of a pair of primitives (closed_form_patch.h),
  // unless switched off; false where it does not apply (Coal then). Two
  // boxes, a box or a capsule and a small polytope use the broad phase's
  // separating axis.
  // `far_reach`: FarPointReach of the pair.
  bool ClosedFormPatchOf(int a, int b, const std::vector<Eigen::Isometry3d>& X_WG,
                         const BoxSeparation& separation, double far_reach,
                         ClosedFormPatch* patch) const {
    if (!closed_form_patches) return false;
    const auto* box_a = std::get_if<Box>(&geometries[a].our_shape);
    const auto* box_b = std::get_if<Box>(&geometries[b].our_shape);
    if (box_a && box_b) {
      return CalcBoxBoxPatch(*box_a, X_WG[a], *box_b, X_WG[b], separation,
                             kPatchTolerance, patch, far_reach);
    }
    PosedPolytope posed;
    if (const int other =
            SmallPolytopePair(a, b, X_WG, /*pose_vertices=*/true, &posed).first;
        other >= 0) {
      const Shape& shape = geometries[other].our_shape;
      const bool found =
          std::holds_alternative<Box>(shape)
              ? CalcBoxPolytopePatch(std::get<Box>(shape), X_WG[other], posed, separation,
                                     kPatchTolerance, patch)
              : CalcCapsulePolytopePatch(std::get<Capsule>(shape), X_WG[other], posed,
                                         separation, kPatchTolerance, patch);
      if (found && other == b) patch->normal_W = -patch->normal_W;  // from A into B
      return found;
    }
    return CalcClosedFormPatch(geometries[a].our_shape, X_WG[a], geometries[b].our_shape,
                               X_WG[b], kPatchTolerance, patch, far_reach);
  }

  bool Skip(int a, int b) const {
    const BroadPhaseGeometry& ga = broad_phase[a];
    const BroadPhaseGeometry& gb = broad_phase[b];
    if (ga.tree < 0 && gb.tree < 0) return true;  // both static
    if (ga.tree == gb.tree && ga.body == gb.body) return true;
    if (any_filter && !filters[a].Collides(filters[b])) return true;
    return excluded.count({a, b}) > 0;
  }
};

CollisionWorld::CollisionWorld() : impl_(std::make_unique<Impl>()) {}
CollisionWorld::~CollisionWorld() = default;
CollisionWorld::CollisionWorld(CollisionWorld&&) noexcept = default;
CollisionWorld& CollisionWorld::operator=(CollisionWorld&&) noexcept = default;

int CollisionWorld::AddGeometry(const Shape& shape, int tree, int body,
                                const Eigen::Isometry3d& X_BG) {
  ValidateShape(shape);
  impl_->geometries.push_back({shape, MakeCoalShape(shape), X_BG});
  const auto* box = std::get_if<Box>(&shape);
  const Impl::HullBox hull_box = Impl::HullBoxOf(shape);
  impl_->broad_phase.push_back(
      {.half_extents = box ? Eigen::Vector3d(0.5 * box->size) : Eigen::Vector3d::Zero(),
       .bounding_radius = BoundingRadius(shape),
       .tree = tree,
       .body = body,
       .box = box != nullptr,
       .half_space = std::holds_alternative<HalfSpace>(shape),
       .mesh = std::holds_alternative<ConvexMesh>(shape),
       .in_hull_box = hull_box.half_extents.any(),
       .thin_box = box != nullptr && box->size.minCoeff() < BoundingRadius(shape)});
  owners_.push_back({.tree = tree, .body = body});
  const auto [numbered, _] = impl_->body_numbers.try_emplace(
      {tree, body}, static_cast<int>(impl_->body_numbers.size()));
  impl_->body_number.push_back(numbered->second);
  impl_->first_world_geometry.resize(impl_->body_numbers.size(), -1);
  impl_->on_several_world_geometries.resize(impl_->body_numbers.size(), 0);
  impl_->mark_stamps.resize(impl_->body_numbers.size(), 0);
  impl_->hull_boxes.push_back(hull_box);
  impl_->walk_start_face.push_back(0);
  impl_->filters.emplace_back();
  const int id = num_geometries() - 1;
  impl_->reaches.push_back(0.0);
  impl_->turns.push_back(0.0);
  if (is_fixed(id) && !impl_->broad_phase[id].half_space) {
    impl_->static_geometries.push_back(id);
    impl_->static_tree_stale = true;
  } else {
    impl_->swept_geometries.push_back(id);
  }
  return id;
}

void CollisionWorld::SetCollisionFilter(int geometry, const CollisionFilter& filter) {
  impl_->filters.at(geometry) = filter;
  impl_->any_filter = impl_->any_filter || !filter.is_default();
}

void CollisionWorld::ExcludePair(int geometry_a, int geometry_b) {
  impl_->excluded.insert(
      {std::min(geometry_a, geometry_b), std::max(geometry_a, geometry_b)});
}

int CollisionWorld::num_geometries() const {
  return static_cast<int>(impl_->geometries.size());
}
const Eigen::Isometry3d& CollisionWorld::pose_in_body(int geometry) const {
  return impl_->geometries[geometry].X_BG;
}
const Shape& CollisionWorld::shape(int geometry) const {
  return impl_->geometries[geometry].our_shape;
}

void CollisionWorld::set_max_sdf_contacts(int max_contacts) {
  if (max_contacts < 1) {
    throw std::invalid_argument("max SDF contacts per pair must be at least 1, got " +
                                std::to_string(max_contacts));
  }
  impl_->max_sdf_contacts = max_contacts;
}
int CollisionWorld::max_sdf_contacts() const { return impl_->max_sdf_contacts; }

void CollisionWorld::set_closed_form_patches(bool enabled) {
  impl_->closed_form_patches = enabled;
}

int CollisionWorld::num_candidate_pairs() const {
  return static_cast<int>(impl_->candidates.size());
}
double CollisionWorld::bounding_radius(int geometry) const {
  return impl_->broad_phase[geometry].bounding_radius;
}

void CollisionWorld::ComputeContacts(const std::vector<Eigen::Isometry3d>& X_WG,
                                     double margin, std::vector<ContactPoint>* contacts,
                                     const std::vector<GeometryMotion>& motion) const {
  if (!motion.empty() && motion.size() != impl_->geometries.size()) {
    throw std::invalid_argument("ComputeContacts: one motion per geometry expected");
  }
  contacts->clear();
  coal::CollisionRequest request(coal::CONTACT, 1);
  // Points of the support sets within kPatchTolerance of the contact plane
  // form the patch; each then gets its own φ (RefineAlongNormal), so that an
  // edge about to touch is seen before it penetrates.
  const coal::ContactPatchRequest patch_request(1, kCurvedPatchSamples, kPatchTolerance);
  coal::CollisionResult& result = impl_->collision_result;
  coal::ContactPatchResult& patches = impl_->patch_result;
  const std::vector<std::pair<int, int>>& pairs =
      impl_->CandidatePairs(X_WG, margin, motion);
  for (size_t pair_index = 0; pair_index < pairs.size(); ++pair_index) {
    const auto [a, b] = pairs[pair_index];
    const double pair_margin = impl_->PairMargin(margin, a, b);
    const Shape& shape_a = impl_->geometries[a].our_shape;
    const Shape& shape_b = impl_->geometries[b].our_shape;
    if (std::holds_alternative<SdfShape>(shape_a) ||
        std::holds_alternative<SdfShape>(shape_b)) {
      impl_->sdf_collision.AddContacts(
          {a, shape_a, X_WG[a], impl_->broad_phase[a].bounding_radius},
          {b, shape_b, X_WG[b], impl_->broad_phase[b].bounding_radius}, pair_margin,
          impl_->max_sdf_contacts, contacts);
      continue;
    }
    // The points of a patch, each with its own φ (RefineAlongNormal).
    const auto add_patch = [&](const Eigen::Vector3d& normal_W, double depth,
                               int num_points, const auto& point_W) {
      const Impl::SurfaceAlongNormal surface_a =
          impl_->SurfaceOf(a, X_WG[a], normal_W, /*leaving=*/true);
      const Impl::SurfaceAlongNormal surface_b =
          impl_->SurfaceOf(b, X_WG[b], normal_W, /*leaving=*/false);
      for (int i = 0; i < num_points; ++i) {
        ContactPoint contact{a, b, point_W(i), normal_W, depth};
        Impl::RefineAlongNormal(surface_a, surface_b, &contact);
        if (contact.phi < pair_margin) contacts->push_back(contact);
      }
      for (const Impl::SurfaceAlongNormal* surface : {&surface_a, &surface_b}) {
        if (surface->polytope != nullptr)
          impl_->walk_start_face[surface->g] = surface->polytope->face();
      }
    };
    ClosedFormPatch& closed_form = impl_->closed_form_patch;
    const double far_reach = impl_->FarPointReach(margin, a, b);
    if (impl_->ClosedFormPatchOf(a, b, X_WG, impl_->candidate_separations[pair_index],
                                 far_reach, &closed_form)) {
      if (closed_form.depth >= pair_margin) continue;
      add_patch(closed_form.normal_W, closed_form.depth, closed_form.num_points,
                [&](int i) { return closed_form.points_W[i]; });
      // The far points, each within far_reach of the depth: those within the
      // margin, exact (no refinement).
      for (int k = 0; k < closed_form.num_far_points; ++k) {
        if (closed_form.far_depths[k] < pair_margin) {
          contacts->push_back({a, b, closed_form.far_points_W[k],
                               closed_form.far_normals_W[k], closed_form.far_depths[k]});
        }
      }
      continue;
    }
    request.security_margin = pair_margin;
    const coal::Transform3s pose_a = ToCoal(X_WG[a]);
    const coal::Transform3s pose_b = ToCoal(X_WG[b]);
    Impl::PairQuery& query = impl_->Query(a, b);
    request.gjk_initial_guess = query.has_guess ? coal::GJKInitialGuess::CachedGuess
                                                : coal::GJKInitialGuess::DefaultGuess;
    request.cached_gjk_guess = query.gjk_guess;
    request.cached_support_func_guess = query.support_guess;
    result.clear();
    query.collide(pose_a, pose_b, request, result);
    query.has_guess =
        !result.isCollision() && result.cached_gjk_guess.squaredNorm() > 0.0;
    query.gjk_guess = result.cached_gjk_guess;
    query.support_guess = result.cached_support_func_guess;
    if (!result.isCollision()) continue;
    patches.set(patch_request);
    query.patch(pose_a, pose_b, result, patch_request, patches);
    for (size_t k = 0; k < patches.numContactPatches(); ++k) {
      const coal::ContactPatch& patch = patches.getContactPatch(k);
      // Coal: normal from A to B; penetration_depth is the signed distance.
      // ContactPatch::getPoint(i), without its assertion (Coal builds the
      // assertion's exception object even when it holds: an allocation).
      add_patch(
          patch.getNormal(), patch.penetration_depth,
          static_cast<int>(patch.points().size()), [&](int i) {
            const coal::Vec2s& xy = patch.points()[i];
            return Eigen::Vector3d(patch.tf.transform(coal::Vec3s(xy.x(), xy.y(), 0.0)));
          });
    }
  }
  DropRepeatedWorldContacts(contacts);
}

std::pair<int, int> CollisionWorld::WorldAndTreeGeometries(const ContactPoint& c) const {
  return owners_[c.geometry_a].tree < 0 ? std::pair(c.geometry_a, c.geometry_b)
                                        : std::pair(c.geometry_b, c.geometry_a);
}

void CollisionWorld::OrderContactsThatMayRepeat(
    const std::vector<ContactPoint>& contacts) const {
  const auto with_the_world = [&](const ContactPoint& c) {
    return (owners_[c.geometry_a].tree < 0) != (owners_[c.geometry_b].tree < 0);
  };
  // A repeat needs two of the world's geometries under one body: the bodies
  // on several are marked first (in a resting scene few are, and most steps
  // order nothing). A body's marks hold for this call where its stamp is
  // this call's.
  std::vector<int>& first_world = impl_->first_world_geometry;
  std::vector<char>& several = impl_->on_several_world_geometries;
  std::vector<std::uint64_t>& stamp = impl_->mark_stamps;
  const std::uint64_t call = ++impl_->mark_calls;
  bool any_on_several = false;
  for (const ContactPoint& c : contacts) {
    if (!with_the_world(c)) continue;
    const auto [world, moving] = WorldAndTreeGeometries(c);
    const int body = impl_->body_number[moving];
    if (stamp[body] != call) {
      stamp[body] = call, first_world[body] = world, several[body] = 0;
    } else if (first_world[body] != world) {
      several[body] = 1, any_on_several = true;
    }
  }
  std::vector<WorldContactKey>& order = impl_->world_contact_order;
  order.clear();
  for (int i = 0; any_on_several && i < static_cast<int>(contacts.size()); ++i) {
    if (!with_the_world(contacts[i])) continue;
    const auto [world, moving] = WorldAndTreeGeometries(contacts[i]);
    if (!several[impl_->body_number[moving]]) continue;
    order.push_back({{owners_[world].body, owners_[moving].tree, owners_[moving].body},
                     contacts[i].p_W.x(),
                     i});
  }
  std::sort(order.begin(), order.end());
}

void CollisionWorld::DropRepeatedWorldContacts(
    std::vector<ContactPoint>* contacts) const {
  OrderContactsThatMayRepeat(*contacts);
  const std::vector<WorldContactKey>& order = impl_->world_contact_order;
  if (order.size() < 2) return;
  // The normal from the world into the tree's body.
  const auto normal_from_world = [&](int i) {
    const ContactPoint& c = (*contacts)[i];
    return Eigen::Vector3d(owners_[c.geometry_a].tree < 0 ? c.normal_W : -c.normal_W);
  };
  std::vector<char>& repeated = impl_->repeated_contact;
  repeated.assign(contacts->size(), 0);
  for (size_t k = 0; k < order.size(); ++k) {
    const int i = order[k].index;
    for (size_t l = k + 1; l < order.size(); ++l) {
      const int j = order[l].index;
      if (order[l].bodies != order[k].bodies ||
          order[l].x - order[k].x > kRepeatedContact)
        break;
      if (((*contacts)[j].p_W - (*contacts)[i].p_W).norm() <= kRepeatedContact &&
          (normal_from_world(j) - normal_from_world(i)).norm() <= kRepeatedContact) {
        repeated[std::max(i, j)] = 1;  // the later one
      }
    }
  }
  const auto first_repeated = std::find(repeated.begin(), repeated.end(), 1);
  int kept = static_cast<int>(first_repeated - repeated.begin());
  for (int i = kept; i < static_cast<int>(contacts->size()); ++i) {
    if (!repeated[i]) (*contacts)[kept++] = (*contacts)[i];
  }
  contacts->resize(kept);
}

}  // namespace coulomb
