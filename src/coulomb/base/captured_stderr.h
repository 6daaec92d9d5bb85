#pragma once

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

namespace coulomb {

// Captures what third-party code writes to the process's standard error
// (file descriptor 2) while it runs: urdfdom and Assimp print their own
// diagnostics there, which would break Coulomb's one-line error messages.
// Release() stops capturing and returns the text; the destructor stops and
// discards it. The whole process's stderr is redirected meanwhile: for
// short, single-threaded calls such as loading a file.
class CapturedStderr {
 public:
  CapturedStderr() {
    std::fflush(stderr);
    std::cerr.flush();
    file_ = std::tmpfile();
    if (file_ == nullptr) return;  // nothing captured: the output goes through
    saved_ = dup(STDERR_FILENO);
    if (saved_ < 0 || dup2(fileno(file_), STDERR_FILENO) < 0) Restore();
  }
  ~CapturedStderr() { Release(); }
  CapturedStderr(const CapturedStderr&) = delete;
  CapturedStderr& operator=(const CapturedStderr&) = delete;

  std::string Release() {
    if (file_ == nullptr) return "";
    std::fflush(stderr);
    std::cerr.flush();
    Restore();
    std::string text;
    std::rewind(file_);
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), file_)) > 0;)
      text.append(buffer, n);
    std::fclose(file_);
    file_ = nullptr;
    return text;
  }

  // The first non-blank line of `text`, its runs of blanks made one space.
  static std::string FirstLine(const std::string& text) {
    std::string line;
    for (char c : text) {
      if (c == '\n' && !line.empty()) break;
      const bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
      if (blank && (line.empty() || line.back() == ' ')) continue;
      line += blank ? ' ' : c;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
  }

 private:
  void Restore() {
    if (saved_ >= 0) {
      dup2(saved_, STDERR_FILENO);
      close(saved_);
      saved_ = -1;
    }
  }

  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

}  // namespace coulomb
