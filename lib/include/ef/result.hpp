// SPDX-License-Identifier: LGPL-2.1-or-later
// ef::Result<T>: a value or an errno-coded error with a message. The core
// library reports every failure this way so the C ABI can hand the code and the
// text through unchanged.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace ef {

struct Error {
  int code;             // an errno value: EINVAL, EBADF, ETIMEDOUT, ESTALE, ...
  std::string message;  // says what was wrong, naming the values involved
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &value() & { return std::get<0>(v_); }
  const T &value() const & { return std::get<0>(v_); }
  T &&value() && { return std::get<0>(std::move(v_)); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }

  const Error &error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error &error() const { return error_; }

 private:
  Error error_{};
  bool failed_ = false;
};

}  // namespace ef
