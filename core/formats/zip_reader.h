// Reader for the zip container torch.save writes (PyTorch >= 1.6): every
// record STORED (uncompressed), local headers padded so data is 64-byte
// aligned, and (torch 1.13 and later) a ZIP64 end-of-central-directory
// record even for small files. Only the central directory is trusted for
// sizes; local headers give just the data's start. Every offset and size is
// checked against the file, so a malformed zip is rejected with a ZipError
// naming the problem, never read out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/error.h"

namespace minimind {

// Every throw names its own kind ("zip.<what>") and the values its message is
// made of (util/error.h), so the page can word it in the reader's language.
class ZipError : public Error {
 public:
  ZipError(std::string kind, ErrorValues values, const std::string& message)
      : Error(std::move(kind), std::move(values), message) {}
};

struct ZipEntry {
  std::string name;
  uint16_t method = 0;       // 0 stored, 8 deflate, ...
  uint16_t flags = 0;        // general purpose bits (bit 0: encrypted)
  uint64_t data_offset = 0;  // start of the data in the file (after the local header)
  uint64_t size = 0;         // uncompressed size
  uint64_t stored_size = 0;  // compressed size (equal to size when stored)
};

// A parsed view of zip bytes. Does not copy the bytes: they must outlive the
// object.
class ZipReader {
 public:
  ZipReader(const uint8_t* bytes, size_t size);

  const std::vector<ZipEntry>& entries() const { return entries_; }
  const ZipEntry* find(const std::string& name) const;  // nullptr when absent

  // The bytes of a stored entry (throws for a compressed or encrypted one).
  const uint8_t* data(const ZipEntry& entry) const;

 private:
  const uint8_t* bytes_;
  std::vector<ZipEntry> entries_;
  std::map<std::string, size_t> by_name_;
};

}  // namespace minimind
