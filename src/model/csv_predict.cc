#include "model/csv_predict.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <vector>

namespace verdict::model {
namespace {

// Rows scored together through PredictMarginBatch.
constexpr size_t kBatchRows = 1024;

// Splits one CSV line into cells; false on an unterminated quote.
bool SplitCsvLine(std::string_view line, std::vector<std::string>* cells) {
  cells->clear();
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cell.push_back('"');
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cell.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells->push_back(std::move(cell));
      cell.clear();
    } else {
      cell.push_back(c);
    }
  }
  if (quoted) return false;
  cells->push_back(std::move(cell));
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool ParseCell(std::string_view text, float* out) {
  text = Trim(text);
  if (text.empty()) {
    *out = std::numeric_limits<float>::quiet_NaN();
    return true;
  }
  if (text.front() == '+') text.remove_prefix(1);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

template <typename T>
void AppendNumber(std::string& line, T value) {
  char text[64];
  auto [end, ec] = std::to_chars(text, text + sizeof(text), value);
  line.append(text, ec == std::errc() ? end : text);
}

bool ReadLine(std::istream& in, std::string* line) {
  if (!std::getline(in, *line)) return false;
  if (!line->empty() && line->back() == '\r') line->pop_back();
  return true;
}

}  // namespace

Status PredictCsv(const Forest& forest, std::istream& in, std::ostream& out,
                  const CsvPredictOptions& options) {
  const size_t n = forest.num_features();
  std::string line;
  std::vector<std::string> cells;
  if (!ReadLine(in, &line)) {
    return InvalidArgument(options.source + ": empty input, expected a header of feature names");
  }
  if (!SplitCsvLine(line, &cells)) {
    return InvalidArgument(options.source + " line 1: unterminated quote");
  }
  std::unordered_map<std::string_view, size_t> feature_index;
  for (size_t f = 0; f < n; ++f) feature_index.emplace(forest.feature_names()[f], f);
  // column_feature[c]: the model feature that column c feeds, or n when it feeds none.
  std::vector<size_t> column_feature(cells.size(), n);
  std::vector<bool> seen(n, false);
  for (size_t c = 0; c < cells.size(); ++c) {
    auto it = feature_index.find(Trim(cells[c]));
    if (it == feature_index.end()) continue;
    if (seen[it->second]) {
      return InvalidArgument(options.source + " line 1: column '" + cells[c] + "' appears twice",
                             cells[c]);
    }
    seen[it->second] = true;
    column_feature[c] = it->second;
  }
  std::string missing;
  for (size_t f = 0; f < n; ++f) {
    if (!seen[f]) missing += (missing.empty() ? "" : ", ") + forest.feature_names()[f];
  }
  if (!missing.empty()) {
    return InvalidArgument(options.source + ": the header lacks model feature columns: " + missing);
  }
  const size_t num_columns = cells.size();

  std::string text = "margin,probability";
  if (options.explain) {
    for (const std::string& name : forest.feature_names()) text += "," + name;
    text += ",bias";
  }
  text += "\n";
  out << text;

  std::vector<float> rows;
  std::vector<float> margins(kBatchRows);
  std::vector<double> contributions(n + 1);
  const auto flush = [&]() {
    const size_t count = n == 0 ? 0 : rows.size() / n;
    forest.PredictMarginBatch(rows.data(), count, margins.data());
    std::string block;
    for (size_t r = 0; r < count; ++r) {
      AppendNumber(block, margins[r]);
      block.push_back(',');
      AppendNumber(block, forest.Probability(margins[r]));
      if (options.explain) {
        forest.ExplainTreeShap(rows.data() + r * n, contributions.data());
        for (double c : contributions) {
          block.push_back(',');
          AppendNumber(block, c);
        }
      }
      block.push_back('\n');
    }
    out << block;
    rows.clear();
  };
  size_t line_number = 1;
  size_t pending = 0;
  while (ReadLine(in, &line)) {
    ++line_number;
    if (Trim(line).empty()) continue;
    const std::string where = options.source + " line " + std::to_string(line_number);
    if (!SplitCsvLine(line, &cells)) return InvalidArgument(where + ": unterminated quote");
    if (cells.size() != num_columns) {
      return InvalidArgument(where + ": has " + std::to_string(cells.size()) +
                             " cells, the header has " + std::to_string(num_columns));
    }
    const size_t base = rows.size();
    rows.resize(base + n);
    for (size_t c = 0; c < num_columns; ++c) {
      const size_t f = column_feature[c];
      if (f == n) continue;
      if (!ParseCell(cells[c], &rows[base + f])) {
        return InvalidArgument(where + ", column '" + forest.feature_names()[f] + "': '" +
                                   cells[c] + "' is not a number",
                               forest.feature_names()[f]);
      }
    }
    if (n == 0) {
      // Without features every row scores the base margin; there is nothing to buffer.
      const float margin = forest.PredictMargin(nullptr);
      std::string single;
      AppendNumber(single, margin);
      single.push_back(',');
      AppendNumber(single, forest.Probability(margin));
      if (options.explain) {
        single.push_back(',');
        AppendNumber(single, forest.bias());
      }
      out << single << "\n";
      continue;
    }
    if (++pending == kBatchRows) {
      flush();
      pending = 0;
    }
  }
  flush();
  if (!out) return Internal(options.source + ": writing the output failed");
  return Status::Ok();
}

}  // namespace verdict::model
