#include "engine/rescreen_run.h"

#include <simdjson.h>

namespace verdict {
namespace {

constexpr std::string_view kStateNames[] = {"pending", "running", "done", "failed", "superseded"};

void WriteCommon(const RescreenRun& run, JsonWriter& w) {
  w.Key("run").String(run.run_id).Key("policy_version").String(run.policy_version);
  w.Key("principal").String(run.principal).Key("state").String(RescreenStateName(run.state));
  w.Key("activated_at_us").Int(run.activated_at_us).Key("since_us").Int(run.since_us);
  w.Key("records_read").Uint(run.records_read).Key("parties").Uint(run.parties);
  w.Key("hits").Uint(run.hits).Key("cases_opened").Uint(run.cases_opened);
  w.Key("truncated").Bool(run.truncated).Key("finished_at_us").Int(run.finished_at_us);
  w.Key("error").String(run.error);
}

Status Corrupt(std::string_view what) {
  return DataLoss("stored re-screen run: " + std::string(what));
}

}  // namespace

std::string_view RescreenStateName(RescreenState state) {
  return kStateNames[static_cast<int>(state)];
}

std::string RescreenRunToJson(const RescreenRun& run) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  WriteCommon(run, w);
  w.Key("lists").BeginArray();
  for (const RescreenList& l : run.lists) {
    w.BeginObject().Key("list").String(l.list).Key("version").String(l.version);
    w.Key("added").BeginArray();
    for (const Watchlist::Input& in : l.added) {
      w.BeginArray().String(in.id).String(in.name).String(in.primary).String(in.alias_kind);
      w.EndArray();
    }
    w.EndArray().EndObject();
  }
  w.EndArray().EndObject();
  return out;
}

Result<RescreenRun> RescreenRunFromJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::object obj;
  if (parser.parse(padded).get_object().get(obj) != simdjson::SUCCESS) {
    return Corrupt("not a JSON object");
  }
  RescreenRun run;
  auto text = [&obj](const char* key, std::string* out) {
    std::string_view s;
    if (obj[key].get_string().get(s) != simdjson::SUCCESS) return false;
    *out = std::string(s);
    return true;
  };
  std::string state;
  if (!text("run", &run.run_id) || !text("policy_version", &run.policy_version) ||
      !text("principal", &run.principal) || !text("state", &state) || !text("error", &run.error)) {
    return Corrupt("a text field is missing");
  }
  bool known = false;
  for (size_t i = 0; i < std::size(kStateNames); ++i) {
    if (state == kStateNames[i]) {
      run.state = static_cast<RescreenState>(i);
      known = true;
    }
  }
  if (!known) return Corrupt("unknown state '" + state + "'");
  if (obj["activated_at_us"].get_int64().get(run.activated_at_us) != simdjson::SUCCESS ||
      obj["since_us"].get_int64().get(run.since_us) != simdjson::SUCCESS ||
      obj["finished_at_us"].get_int64().get(run.finished_at_us) != simdjson::SUCCESS ||
      obj["records_read"].get_uint64().get(run.records_read) != simdjson::SUCCESS ||
      obj["parties"].get_uint64().get(run.parties) != simdjson::SUCCESS ||
      obj["hits"].get_uint64().get(run.hits) != simdjson::SUCCESS ||
      obj["cases_opened"].get_uint64().get(run.cases_opened) != simdjson::SUCCESS ||
      obj["truncated"].get_bool().get(run.truncated) != simdjson::SUCCESS) {
    return Corrupt("a number is missing");
  }
  simdjson::dom::array lists;
  if (obj["lists"].get_array().get(lists) != simdjson::SUCCESS) return Corrupt("no lists");
  for (simdjson::dom::element l : lists) {
    RescreenList list;
    std::string_view name, version;
    simdjson::dom::array added;
    if (l["list"].get_string().get(name) != simdjson::SUCCESS ||
        l["version"].get_string().get(version) != simdjson::SUCCESS ||
        l["added"].get_array().get(added) != simdjson::SUCCESS) {
      return Corrupt("a list without its name, version or added names");
    }
    list.list = std::string(name);
    list.version = std::string(version);
    for (simdjson::dom::element a : added) {
      std::string_view f[4];
      simdjson::dom::array fields;
      if (a.get_array().get(fields) != simdjson::SUCCESS || fields.size() != 4) {
        return Corrupt("an added name is not [id, name, primary, kind]");
      }
      size_t i = 0;
      for (simdjson::dom::element e : fields) {
        if (e.get_string().get(f[i++]) != simdjson::SUCCESS) return Corrupt("a name field");
      }
      list.added.push_back(
          {std::string(f[0]), std::string(f[1]), std::string(f[2]), std::string(f[3])});
    }
    run.lists.push_back(std::move(list));
  }
  return run;
}

void WriteRescreenStatusJson(const RescreenRun& run, JsonWriter& w) {
  w.BeginObject();
  WriteCommon(run, w);
  w.Key("lists").BeginArray();
  for (const RescreenList& l : run.lists) {
    w.BeginObject().Key("list").String(l.list).Key("version").String(l.version);
    w.Key("added_names").Uint(l.added.size());
    w.EndObject();
  }
  w.EndArray().EndObject();
}

}  // namespace verdict
