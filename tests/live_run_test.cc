// The live viewer's source (LiveRun) follows a simulation's recording,
// also across DiscardRecording, which restarts the trajectory's sample
// indices: the frames after a discard keep coming, in time order.
#include "coulomb/viewer/live_run.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {
namespace {

// The page's frame count, from Meta's JSON.
int Frames(const LiveRun& live) {
  std::smatch match;
  const std::string meta = live.Meta();
  EXPECT_TRUE(std::regex_search(meta, match, std::regex("\"frames\": *([0-9]+)")));
  return std::stoi(match[1]);
}

TEST(LiveRun, FollowsTheRecordingAcrossADiscard) {
  Simulation simulation(MakeBuiltinScene("clutter", {{"bodies", "8"}}));
  LiveRun live(simulation);
  const int initial = Frames(live);  // the state before the first step
  ASSERT_GE(initial, 0);
  for (int n = 0; n < 3; ++n) ASSERT_TRUE(simulation.Step().converged);
  live.Update(simulation);
  EXPECT_EQ(Frames(live), initial + 3);
  simulation.DiscardRecording();
  EXPECT_EQ(simulation.num_discarded_samples(), static_cast<size_t>(initial + 3));
  for (int n = 0; n < 2; ++n) ASSERT_TRUE(simulation.Step().converged);
  live.Update(simulation);
  EXPECT_EQ(Frames(live), initial + 5);
  // Discarded before the page took them: those two are lost, the next come.
  for (int n = 0; n < 2; ++n) ASSERT_TRUE(simulation.Step().converged);
  simulation.DiscardRecording();
  ASSERT_TRUE(simulation.Step().converged);
  live.Update(simulation);
  EXPECT_EQ(Frames(live), initial + 6);
}

}  // namespace
}  // namespace coulomb
