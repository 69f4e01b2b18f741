// Secret key files in the data dir (signing key, key-encryption key): raw bytes, mode 0600,
// created atomically on first use. Stateless functions; safe from any thread, but two processes
// creating the same file race benignly (O_EXCL: one wins, the other reads the winner's key).
#pragma once

#include <cstddef>
#include <string>

#include "common/result.h"

namespace verdict::journal {

// Reads a file of exactly `size` bytes. Refuses one that group or others can read or write:
// a key anyone can read signs nothing.
Result<std::string> ReadSecretFile(const std::string& path, size_t size);

// Reads the file, or when it does not exist creates it (0600, fsynced with its directory)
// holding `size` bytes from the OpenSSL CSPRNG.
Result<std::string> LoadOrCreateSecretFile(const std::string& path, size_t size);

// Writes `contents` to a new file at `path` with `mode` (fails if it exists), fsynced.
Status WriteNewFile(const std::string& path, const std::string& contents, unsigned mode);

}  // namespace verdict::journal
