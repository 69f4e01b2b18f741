#include "model/model_info.h"

#include <charconv>

#include "common/json_writer.h"

namespace verdict::model {
namespace {

// Shortest text that reads back to the same float (0.3f prints as 0.3, not 0.30000001...).
std::string FloatText(float value) {
  char text[32];
  auto [end, ec] = std::to_chars(text, text + sizeof(text), value);
  return ec == std::errc() ? std::string(text, end) : std::string("nan");
}

}  // namespace

std::string DescribeText(const Forest& forest) {
  std::string out;
  out += "trees: " + std::to_string(forest.num_trees()) + "\n";
  out += "max_depth: " + std::to_string(forest.max_depth()) + "\n";
  out += "nodes: " + std::to_string(forest.num_nodes()) + "\n";
  out += "features: " + std::to_string(forest.num_features()) + "\n";
  out += "objective: " + std::string(ObjectiveName(forest.objective())) + "\n";
  out += "base_score: " + FloatText(forest.base_score()) + "\n";
  out += "sha256: " + forest.sha256() + "\n";
  out += "feature_names:";
  for (const std::string& name : forest.feature_names()) out += " " + name;
  out += "\n";
  return out;
}

std::string DescribeJson(const Forest& forest) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("trees").Uint(forest.num_trees());
  w.Key("max_depth").Int(forest.max_depth());
  w.Key("nodes").Uint(forest.num_nodes());
  w.Key("num_features").Uint(forest.num_features());
  w.Key("features").BeginArray();
  for (const std::string& name : forest.feature_names()) w.String(name);
  w.EndArray();
  w.Key("objective").String(ObjectiveName(forest.objective()));
  w.Key("base_score").Raw(FloatText(forest.base_score()));
  w.Key("sha256").String(forest.sha256());
  w.EndObject();
  out += "\n";
  return out;
}

}  // namespace verdict::model
