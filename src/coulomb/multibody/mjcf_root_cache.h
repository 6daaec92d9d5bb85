#pragma once

namespace coulomb {

// While one is alive on a thread, ReadMjcfRoot there reads each file once
// (again only when its time or size changed): a scene of N top-level
// bodies of one file reads the file for each body, which took seconds at
// N = 200. A scene load holds one; scopes nest (the outermost one forgets
// the files when it ends). An included file is not watched: a load does not
// outlive an edit of it.
class MjcfRootCache {
 public:
  MjcfRootCache();
  ~MjcfRootCache();
  MjcfRootCache(const MjcfRootCache&) = delete;
  MjcfRootCache& operator=(const MjcfRootCache&) = delete;
};

}  // namespace coulomb
