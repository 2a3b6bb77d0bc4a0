#include "formats/zip_reader.h"

namespace minimind {

namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;    // PK\3\4
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;  // PK\1\2
constexpr uint32_t kEndSignature = 0x06054b50;            // PK\5\6
constexpr uint32_t kZip64EndSignature = 0x06064b50;       // PK\6\6
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;   // PK\6\7
constexpr size_t kEndSize = 22, kZip64EndSize = 56, kZip64LocatorSize = 20;
constexpr size_t kCentralHeaderSize = 46, kLocalHeaderSize = 30;
constexpr uint16_t kZip64ExtraId = 0x0001;

uint16_t u16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t u32(const uint8_t* p) { return uint32_t(u16(p)) | (uint32_t(u16(p + 2)) << 16); }
uint64_t u64(const uint8_t* p) { return uint64_t(u32(p)) | (uint64_t(u32(p + 4)) << 32); }

// True when [offset, offset + length) lies inside [0, size), without overflow.
bool fits(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }

std::string method_name(uint16_t method) {
  switch (method) {
    case 8:
      return "deflate";
    case 9:
      return "deflate64";
    case 12:
      return "bzip2";
    case 14:
      return "lzma";
    case 93:
      return "zstd";
    default:
      return "method " + std::to_string(method);
  }
}

// An entry name for a message: control bytes shown as '?', long names cut.
std::string shown(const std::string& name) {
  std::string out = name.substr(0, 120);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return "\"" + out + (name.size() > 120 ? "...\"" : "\"");
}

struct Directory {
  uint64_t entries = 0;
  uint64_t size = 0;
  uint64_t offset = 0;
};

// The end-of-central-directory record, searched backwards over the comment
// (at most 65535 bytes), and the ZIP64 record when a locator precedes it.
Directory find_directory(const uint8_t* bytes, size_t size) {
  if (size < kEndSize) {
    throw ZipError("zip.too_short", {{"size", int64_t(size)}},
                   "file is " + std::to_string(size) + " bytes, too short for a zip (truncated?)");
  }
  size_t end = size;  // position of the end record; size means not found
  const size_t lowest = size - kEndSize > 65535 ? size - kEndSize - 65535 : 0;
  for (size_t pos = size - kEndSize + 1; pos-- > lowest;) {
    if (u32(bytes + pos) == kEndSignature && pos + kEndSize + u16(bytes + pos + 20) <= size) {
      end = pos;
      break;
    }
  }
  if (end == size) {
    throw ZipError("zip.not_zip", {}, "no end-of-central-directory record: not a zip file, or truncated");
  }
  const uint8_t* e = bytes + end;
  if (u16(e + 4) != 0 || u16(e + 6) != 0 || u16(e + 8) != u16(e + 10)) {
    throw ZipError("zip.multi_disk", {}, "zip spans several disks; only single-file zips are supported");
  }
  Directory d{u16(e + 10), u32(e + 12), u32(e + 16)};
  uint64_t directory_end = end;
  if (end >= kZip64LocatorSize && u32(e - kZip64LocatorSize) == kZip64LocatorSignature) {
    const uint8_t* locator = e - kZip64LocatorSize;
    const uint64_t record = u64(locator + 8);
    if (u32(locator + 4) != 0 || u32(locator + 16) > 1) {
      throw ZipError("zip.multi_disk", {}, "zip spans several disks; only single-file zips are supported");
    }
    if (!fits(record, kZip64EndSize, end - kZip64LocatorSize) || u32(bytes + record) != kZip64EndSignature) {
      throw ZipError("zip.zip64_record_missing", {{"offset", int64_t(record)}},
                     "ZIP64 locator points to offset " + std::to_string(record) +
                         ", where there is no ZIP64 end-of-central-directory record (truncated?)");
    }
    const uint8_t* z = bytes + record;
    if (u32(z + 16) != 0 || u32(z + 20) != 0 || u64(z + 24) != u64(z + 32)) {
      throw ZipError("zip.multi_disk", {}, "zip spans several disks; only single-file zips are supported");
    }
    d = {u64(z + 32), u64(z + 40), u64(z + 48)};
    directory_end = record;
  } else if (d.entries == 0xffff || d.size == 0xffffffff || d.offset == 0xffffffff) {
    throw ZipError("zip.zip64_locator_missing", {},
                   "end-of-central-directory record holds ZIP64 markers but there is no ZIP64 locator (truncated?)");
  }
  if (!fits(d.offset, d.size, directory_end)) {
    throw ZipError("zip.directory_past_end",
                   {{"offset", int64_t(d.offset)}, {"bytes", int64_t(d.size)}, {"size", int64_t(size)}},
                   "central directory (offset " + std::to_string(d.offset) + ", " + std::to_string(d.size) +
                       " bytes) runs past the end of the file (" + std::to_string(size) + " bytes; truncated?)");
  }
  if (d.entries > d.size / kCentralHeaderSize) {
    throw ZipError(
        "zip.too_many_entries",
        {{"entries", int64_t(d.entries)}, {"bytes", int64_t(d.size)}, {"room", int64_t(d.size / kCentralHeaderSize)}},
        "zip declares " + std::to_string(d.entries) + " entries but its central directory of " +
            std::to_string(d.size) + " bytes has room for at most " + std::to_string(d.size / kCentralHeaderSize));
  }
  return d;
}

// Replaces the 32-bit fields that hold 0xffffffff by their ZIP64 extra values.
void read_zip64_extra(const uint8_t* extra, size_t length, ZipEntry& entry, uint64_t& local_offset) {
  const bool need_size = entry.size == 0xffffffff, need_stored = entry.stored_size == 0xffffffff,
             need_offset = local_offset == 0xffffffff;
  for (size_t pos = 0; pos + 4 <= length;) {
    const uint16_t id = u16(extra + pos), field_size = u16(extra + pos + 2);
    if (field_size > length - pos - 4) break;  // a malformed trailing field: the checks below decide
    if (id == kZip64ExtraId) {
      const uint8_t* f = extra + pos + 4;
      size_t used = 0;
      const auto next = [&](uint64_t& out) {
        if (used + 8 > field_size)
          throw ZipError("zip.zip64_extra_short", {{"entry", entry.name}},
                         "entry " + shown(entry.name) + ": ZIP64 extra field is too short");
        out = u64(f + used);
        used += 8;
      };
      if (need_size) next(entry.size);
      if (need_stored) next(entry.stored_size);
      if (need_offset) next(local_offset);
      return;
    }
    pos += 4 + field_size;
  }
  if (need_size || need_stored || need_offset) {
    throw ZipError("zip.zip64_extra_missing", {{"entry", entry.name}},
                   "entry " + shown(entry.name) + " has ZIP64 sizes but no ZIP64 extra field");
  }
}

}  // namespace

ZipReader::ZipReader(const uint8_t* bytes, size_t size) : bytes_(bytes) {
  const Directory d = find_directory(bytes, size);
  const uint64_t directory_end = d.offset + d.size;
  uint64_t pos = d.offset;
  for (uint64_t i = 0; i < d.entries; ++i) {
    if (!fits(pos, kCentralHeaderSize, directory_end) || u32(bytes + pos) != kCentralHeaderSignature) {
      throw ZipError("zip.bad_central_header", {{"index", int64_t(i)}, {"offset", int64_t(pos)}},
                     "central directory entry " + std::to_string(i) + " at offset " + std::to_string(pos) +
                         " is not a central directory header");
    }
    const uint8_t* h = bytes + pos;
    const uint16_t name_length = u16(h + 28), extra_length = u16(h + 30), comment_length = u16(h + 32);
    const uint64_t header_length = kCentralHeaderSize + name_length + extra_length + comment_length;
    if (!fits(pos, header_length, directory_end)) {
      throw ZipError("zip.central_entry_past_end", {{"index", int64_t(i)}},
                     "central directory entry " + std::to_string(i) + " runs past the end of the directory");
    }
    ZipEntry entry;
    entry.name.assign(reinterpret_cast<const char*>(h + kCentralHeaderSize), name_length);
    entry.flags = u16(h + 8);
    entry.method = u16(h + 10);
    entry.stored_size = u32(h + 20);
    entry.size = u32(h + 24);
    uint64_t local = u32(h + 42);
    read_zip64_extra(h + kCentralHeaderSize + name_length, extra_length, entry, local);
    pos += header_length;

    // The data starts after the local header, whose name and extra field
    // (torch pads with it to align the data) may differ in length from the
    // central copy.
    if (!fits(local, kLocalHeaderSize, size) || u32(bytes + local) != kLocalHeaderSignature) {
      throw ZipError("zip.bad_local_header",
                     {{"entry", entry.name}, {"offset", int64_t(local)}, {"size", int64_t(size)}},
                     "entry " + shown(entry.name) + ": local header offset " + std::to_string(local) +
                         " does not point to a local file header (file of " + std::to_string(size) + " bytes)");
    }
    entry.data_offset = local + kLocalHeaderSize + u16(bytes + local + 26) + u16(bytes + local + 28);
    if (!fits(entry.data_offset, entry.stored_size, size)) {
      throw ZipError("zip.data_past_end",
                     {{"entry", entry.name},
                      {"bytes", int64_t(entry.stored_size)},
                      {"offset", int64_t(entry.data_offset)},
                      {"size", int64_t(size)}},
                     "entry " + shown(entry.name) + ": its " + std::to_string(entry.stored_size) +
                         " bytes of data at offset " + std::to_string(entry.data_offset) +
                         " run past the end of the file (" + std::to_string(size) + " bytes; truncated?)");
    }
    if (!by_name_.emplace(entry.name, entries_.size()).second) {
      throw ZipError("zip.duplicate_entry", {{"entry", entry.name}},
                     "zip holds two entries named " + shown(entry.name));
    }
    entries_.push_back(std::move(entry));
  }
}

const ZipEntry* ZipReader::find(const std::string& name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

const uint8_t* ZipReader::data(const ZipEntry& entry) const {
  if (entry.flags & 1)
    throw ZipError("zip.encrypted", {{"entry", entry.name}}, "entry " + shown(entry.name) + " is encrypted");
  if (entry.method != 0) {
    throw ZipError("zip.compressed", {{"entry", entry.name}, {"method", method_name(entry.method)}},
                   "entry " + shown(entry.name) + " is compressed (" + method_name(entry.method) +
                       "); torch.save stores every record uncompressed: was the file re-zipped?");
  }
  if (entry.stored_size != entry.size) {
    throw ZipError("zip.stored_size_mismatch",
                   {{"entry", entry.name}, {"stored", int64_t(entry.stored_size)}, {"size", int64_t(entry.size)}},
                   "entry " + shown(entry.name) + " is stored but its compressed size (" +
                       std::to_string(entry.stored_size) + ") differs from its size (" + std::to_string(entry.size) +
                       ")");
  }
  return bytes_ + entry.data_offset;
}

}  // namespace minimind
