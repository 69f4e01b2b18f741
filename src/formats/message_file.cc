#include "formats/message_file.h"

#include <algorithm>

#include "formats/message_text.h"

namespace verdict {
namespace {

std::string_view SkipBomAndSpace(std::string_view s) {
  if (s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);
  while (!s.empty() && (s[0] == ' ' || s[0] == '\t' || s[0] == '\r' || s[0] == '\n')) {
    s.remove_prefix(1);
  }
  return s;
}

}  // namespace

std::optional<CsvFormat> SniffPaymentMessageFormat(std::string_view head) {
  head = SkipBomAndSpace(head);
  if (head.starts_with("<")) return CsvFormat::kIso20022;
  if (head.starts_with("{1:") || head.starts_with("$")) return CsvFormat::kSwiftMt;
  return std::nullopt;
}

Result<std::unique_ptr<PaymentMessageFile>> PaymentMessageFile::FromString(
    std::string data, CsvFormat format, const PaymentMessageOptions& options) {
  if (format != CsvFormat::kIso20022 && format != CsvFormat::kSwiftMt) {
    return InvalidArgument("not a payment message format", "format");
  }
  std::unique_ptr<PaymentMessageFile> file(new PaymentMessageFile());
  file->data_ = std::move(data);
  file->format_ = format;
  file->options_ = options;
  const std::string_view text = file->data_;
  if (format == CsvFormat::kSwiftMt) {
    MtLimits limits = options.mt;
    limits.max_messages = std::max<size_t>(limits.max_messages, size_t{1} << 24);  // a file
    VERDICT_ASSIGN_OR_RETURN(std::vector<MtChunk> chunks, SplitMtMessages(text, limits));
    for (const MtChunk& c : chunks) {
      const size_t begin = static_cast<size_t>(c.text.data() - text.data());
      file->chunks_.push_back(Chunk{begin, begin + c.text.size(), c.first_line});
    }
  } else {
    // Documents start at each "<?xml" declaration; text before the first belongs to it.
    std::vector<size_t> starts{0};
    for (size_t at = text.find("<?xml", 1); at != std::string_view::npos;
         at = text.find("<?xml", at + 5)) {
      starts.push_back(at);
    }
    size_t line = 1;
    size_t counted = 0;
    for (size_t i = 0; i < starts.size(); ++i) {
      const size_t end = i + 1 < starts.size() ? starts[i + 1] : text.size();
      line +=
          static_cast<size_t>(std::count(text.begin() + counted, text.begin() + starts[i], '\n'));
      counted = starts[i];
      if (TrimSpace(text.substr(starts[i], end - starts[i])).empty()) continue;
      file->chunks_.push_back(Chunk{starts[i], end, line});
    }
    if (file->chunks_.empty()) return InvalidArgument("no ISO 20022 document in the input");
  }
  return file;
}

void PaymentMessageFile::DecodeChunk(size_t index) {
  const Chunk& c = chunks_[index];
  const std::string_view text = std::string_view(data_).substr(c.begin, c.end - c.begin);
  pending_.clear();
  pending_next_ = 0;
  pending_line_ = c.line;
  if (format_ == CsvFormat::kSwiftMt) {
    pending_.push_back(DecodeSwiftMt(text, c.line, options_.mt));
    return;
  }
  Result<Iso20022Message> m = DecodeIso20022(text, options_.xml);
  if (!m.ok()) {
    pending_.push_back(m.status());
    return;
  }
  pending_ = std::move(m->transactions);
}

std::optional<Result<Transaction>> PaymentMessageFile::Next(size_t* line) {
  while (pending_next_ >= pending_.size()) {
    if (next_chunk_ >= chunks_.size()) return std::nullopt;
    DecodeChunk(next_chunk_++);
  }
  *line = pending_line_;
  return std::move(pending_[pending_next_++]);
}

}  // namespace verdict
