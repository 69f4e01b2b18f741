#include "cli/policy_command.h"

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_writer.h"
#include "features/feature_vector.h"
#include "policy/policy_bundle.h"

namespace verdict {
namespace {

struct CheckFlags {
  std::string path;
  bool json = false;
  std::vector<std::string> features;  // overrides the engine's schema when given
};

int Check(const CheckFlags& flags) {
  auto source = ReadBundle(flags.path);
  if (!source.ok()) {
    if (flags.json) {
      std::string out;
      JsonWriter json(out);
      json.BeginObject().Key("ok").Bool(false).Key("error").String(source.status().message());
      json.EndObject();
      std::printf("%s\n", out.c_str());
    } else {
      std::fprintf(stderr, "verdict policy check: %s\n", source.status().message().c_str());
    }
    return 2;
  }
  std::vector<std::string_view> schema(kFeatureNames.begin(), kFeatureNames.end());
  if (!flags.features.empty()) schema.assign(flags.features.begin(), flags.features.end());

  std::vector<Diagnostic> errors;
  auto policy = CompileBundle(*source, schema, &errors);
  if (flags.json) {
    std::string out;
    JsonWriter json(out);
    json.BeginObject().Key("ok").Bool(policy.ok());
    if (policy.ok()) {
      json.Key("policy");
      WriteBundleInfoJson((*policy)->info(), json);
    } else {
      json.Key("errors");
      WriteDiagnosticsJson(errors, json);
    }
    json.EndObject();
    std::printf("%s\n", out.c_str());
    return policy.ok() ? 0 : 1;
  }
  if (!policy.ok()) {
    for (const Diagnostic& d : errors) std::fprintf(stderr, "%s\n", d.ToString().c_str());
    std::fprintf(stderr, "%zu error%s; the policy would not be activated\n", errors.size(),
                 errors.size() == 1 ? "" : "s");
    return 1;
  }
  const BundleInfo& info = (*policy)->info();
  std::printf("ok: %s version %s sha256 %s\n", info.name.empty() ? "(unnamed)" : info.name.c_str(),
              info.ref.version.c_str(), info.ref.sha256.c_str());
  std::printf("%zu rules, %zu typologies, %zu lists", info.rules, info.typologies,
              info.lists.size());
  for (size_t i = 0; i < info.lists.size(); ++i) {
    std::printf("%s @%s (%.*s, %zu)", i == 0 ? ":" : ",", info.lists[i].name.c_str(),
                static_cast<int>(info.lists[i].kind.size()), info.lists[i].kind.data(),
                info.lists[i].entries);
  }
  std::printf("\n");
  return 0;
}

}  // namespace

void RegisterPolicyCommand(CLI::App& app) {
  CLI::App* policy = app.add_subcommand("policy", "Policy bundles: check before activation");
  policy->require_subcommand(1);
  CLI::App* check = policy->add_subcommand(
      "check", "Check a policy bundle (a .policy file and its lists) against the feature schema");
  auto flags = std::make_shared<CheckFlags>();
  check->add_option("FILE", flags->path, "The .policy file, or a folder holding exactly one")
      ->required();
  check->add_flag("--json", flags->json, "Print {\"ok\":...,\"policy\"|\"errors\":...} on stdout");
  check
      ->add_option("--features", flags->features,
                   "Feature names to check against (default: the engine's schema)")
      ->delimiter(',');
  check->callback([flags] {
    const int status = Check(*flags);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

}  // namespace verdict
