#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "coulomb/base/named_enum.h"

namespace coulomb {

// Bad command-line usage; main prints the message and exits with code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Walks the arguments of one command: flags with values, switches, positionals.
class Arguments {
 public:
  explicit Arguments(std::vector<std::string> arguments)
      : arguments_(std::move(arguments)) {}

  bool Done() const { return next_ >= arguments_.size(); }
  const std::string& Peek() const { return arguments_[next_]; }
  std::string Next() { return arguments_[next_++]; }
  // The value after flag `name`.
  std::string Value(const std::string& name) {
    if (Done()) throw UsageError(name + " needs a value");
    return Next();
  }
  double DoubleValue(const std::string& name);
  int IntValue(const std::string& name);
  // An integer ≥ minimum ("--threads must be ≥ 1" otherwise).
  int IntValueAtLeast(const std::string& name, int minimum);
  // An integer in [minimum, maximum] ("--threads must be from 1 to 256").
  int IntValueInRange(const std::string& name, int minimum, int maximum);
  // A positive finite number ("--dt must be positive" otherwise).
  double PositiveValue(const std::string& name);
  // A finite number ≥ 0 ("--lookahead must be a finite number ≥ 0" otherwise).
  double NonNegativeValue(const std::string& name);
  // A number in (0, 1), e.g. a relative tolerance.
  double FractionValue(const std::string& name);
  // An enumerator by its name (EnumNames); a bad name is a UsageError
  // listing the valid ones.
  template <class Enum>
  Enum EnumValue(const std::string& name) {
    const std::string value = Value(name);
    try {
      return ParseEnum<Enum>(value);
    } catch (const std::invalid_argument& error) {
      throw UsageError(name + ": " + error.what());
    }
  }

 private:
  std::vector<std::string> arguments_;
  size_t next_ = 0;
};

}  // namespace coulomb
