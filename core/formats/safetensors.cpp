#include "formats/safetensors.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "util/half.h"

namespace minimind {

using nlohmann::json;

namespace {

bool parse_dtype(const std::string& s, DType& out) {
  if (s == "F32")
    out = DType::F32;
  else if (s == "F16")
    out = DType::F16;
  else if (s == "BF16")
    out = DType::BF16;
  else if (s == "I32")
    out = DType::I32;
  else
    return false;
  return true;
}

// A non-negative integer that fits comfortably in size_t arithmetic.
bool read_count(const json& v, uint64_t& out) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) return false;
  out = v.get<uint64_t>();
  return out <= (uint64_t{1} << 48);
}

SafetensorsEntry parse_entry(const std::string& name, const json& v, size_t data_size) {
  const std::string where = "tensor \"" + name + "\"";
  if (!v.is_object())
    throw SafetensorsError("safetensors.entry_not_object", {{"tensor", name}},
                           where + ": header entry must be an object");
  if (!v.contains("dtype") || !v["dtype"].is_string())
    throw SafetensorsError("safetensors.entry_field", {{"tensor", name}, {"field", "dtype"}},
                           where + ": missing \"dtype\"");
  if (!v.contains("shape") || !v["shape"].is_array())
    throw SafetensorsError("safetensors.entry_field", {{"tensor", name}, {"field", "shape"}},
                           where + ": missing \"shape\" array");
  if (!v.contains("data_offsets") || !v["data_offsets"].is_array() || v["data_offsets"].size() != 2) {
    throw SafetensorsError("safetensors.entry_field", {{"tensor", name}, {"field", "data_offsets"}},
                           where + ": \"data_offsets\" must be [begin, end]");
  }
  SafetensorsEntry e;
  e.name = name;
  const std::string dtype = v["dtype"].get<std::string>();
  if (!parse_dtype(dtype, e.dtype)) {
    throw SafetensorsError("safetensors.unsupported_dtype", {{"tensor", name}, {"dtype", dtype}},
                           where + " has dtype \"" + dtype + "\"; supported dtypes are F32, F16, BF16 (and I32)");
  }
  uint64_t numel = 1;
  for (const json& d : v["shape"]) {
    uint64_t dim;
    if (!read_count(d, dim))
      throw SafetensorsError("safetensors.shape_not_sizes", {{"tensor", name}, {"shape", v["shape"].dump()}},
                             where + ": shape " + v["shape"].dump() + " is not a list of sizes");
    e.shape.push_back(int64_t(dim));
    if (dim != 0 && numel > (uint64_t{1} << 48) / dim) {
      throw SafetensorsError("safetensors.shape_too_large", {{"tensor", name}, {"shape", v["shape"].dump()}},
                             where + ": shape " + v["shape"].dump() + " is too large");
    }
    numel *= dim;
  }
  uint64_t begin, end;
  if (!read_count(v["data_offsets"][0], begin) || !read_count(v["data_offsets"][1], end) || end < begin) {
    throw SafetensorsError("safetensors.offsets_not_range", {{"tensor", name}, {"offsets", v["data_offsets"].dump()}},
                           where + ": data_offsets " + v["data_offsets"].dump() + " are not a range [begin, end]");
  }
  if (end > data_size) {
    throw SafetensorsError("safetensors.data_past_end",
                           {{"tensor", name}, {"end", int64_t(end)}, {"size", int64_t(data_size)}},
                           where + ": data_offsets " + v["data_offsets"].dump() + " run past the end of the data (" +
                               std::to_string(data_size) + " bytes)");
  }
  const uint64_t needed = numel * dtype_size(e.dtype);
  if (end - begin != needed) {
    throw SafetensorsError("safetensors.size_mismatch",
                           {{"tensor", name},
                            {"bytes", int64_t(end - begin)},
                            {"shape", shape_to_string(e.shape)},
                            {"dtype", dtype},
                            {"needed", int64_t(needed)}},
                           where + ": data_offsets cover " + std::to_string(end - begin) + " bytes but shape " +
                               shape_to_string(e.shape) + " of " + dtype + " needs " + std::to_string(needed));
  }
  e.begin = size_t(begin);
  e.end = size_t(end);
  return e;
}

template <typename T>
T load_le(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));  // the targets (x86, Wasm) are little-endian
  return value;
}

}  // namespace

SafetensorsFile::SafetensorsFile(const uint8_t* bytes, size_t size) {
  parse(bytes, size, size);
  data_ = bytes + data_offset_;
}

SafetensorsFile::SafetensorsFile(const uint8_t* head, size_t head_size, size_t size, ByteReader read)
    : read_(std::move(read)) {
  if (head_size > size)
    throw SafetensorsError("safetensors.head_past_end", {{"head", int64_t(head_size)}, {"size", int64_t(size)}},
                           "the file's first bytes are more than the whole file");
  parse(head, head_size, size);
}

// head: the first head_size bytes of a `size`-byte file.
void SafetensorsFile::parse(const uint8_t* bytes, size_t head_size, size_t size) {
  if (size < 8 || head_size < 8) {
    throw SafetensorsError(
        "safetensors.too_short", {{"size", int64_t(size)}},
        "file is " + std::to_string(size) + " bytes; a safetensors file starts with an 8-byte header length");
  }
  const uint64_t header_size = load_le<uint64_t>(bytes);
  if (header_size > kMaxHeaderBytes) {
    throw SafetensorsError("safetensors.header_too_long",
                           {{"length", header_size <= uint64_t(INT64_MAX) ? ErrorValue(int64_t(header_size))
                                                                          : ErrorValue(std::to_string(header_size))},
                            {"limit", int64_t(kMaxHeaderBytes)}},
                           "header length " + std::to_string(header_size) + " exceeds the limit of " +
                               std::to_string(kMaxHeaderBytes) + " bytes (not a safetensors file?)");
  }
  if (header_size > size - 8) {
    throw SafetensorsError("safetensors.header_past_end", {{"length", int64_t(header_size)}, {"size", int64_t(size)}},
                           "header length " + std::to_string(header_size) + " runs past the end of the file (" +
                               std::to_string(size) + " bytes; truncated?)");
  }
  if (header_size > head_size - 8) {
    throw SafetensorsError("safetensors.header_not_in_head",
                           {{"length", int64_t(header_size)}, {"head", int64_t(head_size)}},
                           "the header (" + std::to_string(header_size) + " bytes) is not all in the first " +
                               std::to_string(head_size) + " bytes given");
  }
  json header;
  try {
    header = json::parse(bytes + 8, bytes + 8 + header_size);
  } catch (const json::exception& e) {
    throw SafetensorsError("safetensors.header_not_json", {}, std::string("header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) throw SafetensorsError("safetensors.header_not_object", {}, "header must be a JSON object");
  data_offset_ = 8 + size_t(header_size);
  data_size_ = size - data_offset_;

  entries_.reserve(header.size());
  by_name_.reserve(header.size());
  for (const auto& item : header.items()) {
    if (item.key() == "__metadata__") {
      if (!item.value().is_object())
        throw SafetensorsError("safetensors.metadata_not_object", {}, "__metadata__ must be an object of strings");
      for (const auto& m : item.value().items()) {
        if (!m.value().is_string())
          throw SafetensorsError("safetensors.metadata_not_string", {{"key", m.key()}},
                                 "__metadata__ value \"" + m.key() + "\" is not a string");
        metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    by_name_.emplace(item.key(), entries_.size());  // JSON object keys are unique
    entries_.push_back(parse_entry(item.key(), item.value(), data_size_));
  }
  std::vector<const SafetensorsEntry*> by_offset;
  for (const auto& e : entries_) {
    if (e.end > e.begin) by_offset.push_back(&e);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const SafetensorsEntry* a, const SafetensorsEntry* b) { return a->begin < b->begin; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    if (by_offset[i]->begin < by_offset[i - 1]->end) {
      throw SafetensorsError(
          "safetensors.overlap", {{"first", by_offset[i - 1]->name}, {"second", by_offset[i]->name}},
          "tensors \"" + by_offset[i - 1]->name + "\" and \"" + by_offset[i]->name + "\" overlap in the data section");
    }
  }
}

const SafetensorsEntry* SafetensorsFile::find(const std::string& name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

const uint8_t* SafetensorsFile::entry_bytes(const SafetensorsEntry& entry, std::vector<uint8_t>& buffer) const {
  if (!read_) return data_ + entry.begin;
  buffer.resize(entry.end - entry.begin);
  if (!buffer.empty()) read_(data_offset_ + entry.begin, buffer.size(), buffer.data());
  return buffer.data();
}

void SafetensorsFile::read_floats(const SafetensorsEntry& entry, float* out) const {
  if (entry.dtype == DType::I32) {
    throw SafetensorsError("safetensors.integer_tensor", {{"tensor", entry.name}},
                           "tensor \"" + entry.name + "\" holds integers (I32), not floating-point weights");
  }
  std::vector<uint8_t> buffer;
  widen_to_f32(entry.dtype, entry_bytes(entry, buffer), (entry.end - entry.begin) / dtype_size(entry.dtype), out);
}

std::vector<int32_t> SafetensorsFile::read_int32(const SafetensorsEntry& entry) const {
  if (entry.dtype != DType::I32) {
    throw SafetensorsError("safetensors.not_int32", {{"tensor", entry.name}, {"dtype", dtype_name(entry.dtype)}},
                           "tensor \"" + entry.name + "\" is " + dtype_name(entry.dtype) + ", not I32");
  }
  std::vector<uint8_t> buffer;
  std::vector<int32_t> out((entry.end - entry.begin) / 4);
  if (!out.empty()) std::memcpy(out.data(), entry_bytes(entry, buffer), out.size() * 4);
  return out;
}

std::vector<std::string> SafetensorsFile::tensor_names() const {
  std::vector<std::string> names;
  for (const auto& e : entries_) names.push_back(e.name);
  return names;
}

void SafetensorsFile::read_tensor(const std::string& name, float* out) const {
  const SafetensorsEntry* entry = find(name);
  if (!entry)
    throw SafetensorsError("safetensors.missing_tensor", {{"tensor", name}}, "no tensor \"" + name + "\" in the file");
  read_floats(*entry, out);
}

std::vector<uint8_t> write_safetensors(const std::vector<NamedTensor>& tensors,
                                       const std::map<std::string, std::string>& metadata) {
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::vector<uint8_t> data;
  for (const NamedTensor& t : tensors) {
    const size_t begin = data.size();
    for (float v : t.values) {
      uint8_t bytes[4];
      size_t n = 4;
      if (t.dtype == DType::F32) {
        std::memcpy(bytes, &v, 4);
      } else if (t.dtype == DType::I32) {
        const int32_t i = int32_t(v);
        std::memcpy(bytes, &i, 4);
      } else {
        const uint16_t h = t.dtype == DType::F16 ? f32_to_f16(v) : f32_to_bf16(v);
        std::memcpy(bytes, &h, 2);
        n = 2;
      }
      data.insert(data.end(), bytes, bytes + n);
    }
    header[t.name] = {{"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  const uint64_t n = text.size();
  uint8_t length[8];
  std::memcpy(length, &n, 8);  // little-endian, as the targets are
  std::vector<uint8_t> out(length, length + 8);
  out.reserve(8 + text.size() + data.size());
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace minimind
