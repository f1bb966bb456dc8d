// An optional value kept out of line: what std::optional<T> is to the code that reads it
// (bool test, *, ->, assignment of a T), at the size of one pointer when empty. For the
// parts of a written-out job that few jobs have (a model, a checkpoint plan, comm, an
// estimate), so that a plain job does not carry their bytes (issue 29, item 3). Copies copy
// the value; the value's address is stable while the box lives, even when the box moves.
#pragma once

#include <memory>
#include <utility>

namespace gcsim::models {

template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const T& v) : p_(std::make_unique<T>(v)) {}        // NOLINT: implicit, as optional's
  Boxed(T&& v) : p_(std::make_unique<T>(std::move(v))) {}  // NOLINT
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(const T& v) {
    p_ = std::make_unique<T>(v);
    return *this;
  }
  Boxed& operator=(T&& v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T* get() { return p_.get(); }
  const T* get() const { return p_.get(); }
  T& emplace() {
    p_ = std::make_unique<T>();
    return *p_;
  }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace gcsim::models
