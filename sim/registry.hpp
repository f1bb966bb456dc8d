// Name -> description + factory, filled explicitly by a register_builtins() call (static
// self-registration gets dropped by linkers). An unknown name lists the valid ones. A name
// registered twice is a bug in whoever fills the registry (InternalError), not a user's: a
// second entry silently replacing the first would change what a scenario means.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/check.hpp"

namespace gcsim::sim {

template <class Product, class... Args>
class Registry {
 public:
  using Factory = std::function<Product(Args...)>;
  struct Entry {
    std::string description;
    Factory factory;
  };

  void add(std::string name, std::string description, Factory factory) {
    const auto [it, added] = entries_.try_emplace(std::move(name), Entry{std::move(description), std::move(factory)});
    if (!added) throw InternalError("registry: '" + it->first + "' is registered twice");
  }
  const Entry* find(const std::string& name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : entries_) out.push_back(k);
    return out;
  }
  const std::map<std::string, Entry>& entries() const { return entries_; }

 private:
  std::map<std::string, Entry> entries_;
};

}  // namespace gcsim::sim
