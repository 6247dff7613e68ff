// What every command-line program of the project does alike around its own
// work (docs/design.md §7): parse with CLI11, turn an error into one stderr
// line and its exit code, record the command as run, print JSON numbers.
#pragma once

#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace tiledqr {

// Parses argv into `app`'s options. Returns -1 when the program goes on,
// else the code to exit with: 0 once --help or --version has printed,
// exit_code::bad_input after a usage error, reported as "<program>: <what>"
// and a hint to run --help.
int parse_command_line(CLI::App& app, int argc, char** argv, const std::string& program);

// Returns `body`'s exit code. An error of errors.hpp, or the machine refusing
// memory or a resource, becomes that error's exit code and one stderr line
// "<program>: error: <what>" ("GPU error:", "stalled:" for those two);
// `resource_hint` ends the line of a refused resource.
int run_reporting_errors(const std::string& program, const std::function<int()>& body,
                         const std::string& resource_hint = "");

// "<program> <argv[1]> <argv[2]> …": the command as run, for a CSV header.
std::string command_line(const std::string& program, int argc, char** argv);

// x with 6 significant digits (printf's %.6g), or null where not finite.
std::string json_number(double x);

// `text` as a JSON string literal: quotes and backslashes escaped, control
// characters as \u00XX (JSON allows none raw), other bytes as they are.
std::string json_string(const std::string& text);

}  // namespace tiledqr
