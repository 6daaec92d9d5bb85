#pragma once

#include <string>
#include <vector>

namespace coulomb {

// coulomb view DIR [--port P] [--host H] [--export FILE]: serves the run
// in DIR (trajectory.h5, stats.json) to the browser viewer, or writes it as
// one self-contained HTML file.
int RunViewCommand(const std::vector<std::string>& arguments);

struct ViewerServerOptions;
class Arguments;
// --port and --host, shared with `coulomb run --view`; false when `flag` is
// neither.
bool ParseViewerServerOption(const std::string& flag, Arguments* arguments,
                             ViewerServerOptions* options);

// Opens `url` in the desktop's browser (xdg-open) when there is a display;
// otherwise nothing (the caller prints the URL).
void OpenInBrowser(const std::string& url);

}  // namespace coulomb
