#pragma once
/// \file
/// Crash-safe files: an append-only journal of JSON lines, each made durable (fsync) before
/// append returns, and files replaced atomically (write, fsync, rename, fsync the directory).
/// A journal may keep spare space: zeros written and synced ahead of its records, so that the
/// sync of a record changes no file metadata (docs/store.md, "Spare space").

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hpsearch {

/// A file could not be opened, written, synced or renamed: `errno_value` says why (ENOSPC: the
/// disk is full; EROFS: it is read-only; EACCES/EPERM: no permission; EIO, EDQUOT, ...).
/// what() is "cannot OPERATION 'PATH': strerror".
class DiskError : public std::runtime_error {
 public:
  DiskError(const std::string& operation, const std::filesystem::path& path, int errno_value);
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] int errno_value() const { return errno_; }

 private:
  std::filesystem::path path_;
  int errno_;
};

/// Opens, appends and writes of this file throw DiskError (after any partial write: a torn
/// tail the reader drops).
class Journal {
 public:
  /// How the file grows.
  enum class Growth {
    as_written,  ///< the file is exactly its records
    /// The file keeps zeros, written and synced ahead, after its records: a record's sync then
    /// only writes data (on ext4, no journal commit: cheaper, and not behind other files'
    /// metadata). The zeros are cut off when the journal is closed; a reader stops at the
    /// first zero byte, which no record holds. For the experiment's journal, synced per
    /// decision; not for files of which there is one per trial.
    spare_space,
  };
  /// Opens (creating if need be) for appending after its last record (zeros after it, left by a
  /// run that did not close it, are written over). Throws DiskError, or std::runtime_error for
  /// a spare-space journal with a torn tail (recovery cuts it back before opening).
  explicit Journal(const std::filesystem::path& path, Growth growth = Growth::as_written);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  /// Appends one record as a line and waits until it is on disk (unless `sync` is false: then
  /// it is on disk once a later record is, or if the machine does not crash). Throws DiskError.
  /// While syncs are held, a record that asks for a sync is only written: the sync comes at
  /// release_syncs (or sync_held), before anything decided on the record is acted on.
  /// Records that wait for a sync (held, or owed by a batch) wait in memory and are written
  /// together, in one write, just before it: the file then holds them at each sync exactly as
  /// before, with one write system call per batch instead of one per record. An unsynced
  /// record outside a batch, owing nothing, is written at once as ever.
  void append(const nlohmann::json& record, bool sync = true);
  /// The same for a record already written as JSON text (json_line's bytes, without the
  /// newline): the journal's hot path writes its records directly (json_lines.hpp).
  void append_text(std::string_view record, bool sync = true);

  /// Group commit: the records appended until release_syncs share one sync.
  void hold_syncs() { held_ = true; }
  /// Syncs what the held records asked for, once, and appends with their own syncs again.
  void release_syncs();
  /// Appends with their own syncs again, but what the held records asked for stays owed: it is
  /// paid by the next sync (sync_held, or a record appended with its sync). For a batch that
  /// decided nothing anyone outside sees yet.
  void stop_holding();
  /// Syncs what the held records asked for now, if anything (a file about to be deleted must
  /// be recorded as deleted first; a line for a trial waits for the records that decided it).
  void sync_held();
  /// Syncs every record written, those that did not ask for a sync too (a snapshot counts the
  /// records before it: they must be on disk before it is).
  void sync_written();
  /// A record asked for a sync that has not happened yet.
  [[nodiscard]] bool sync_owed() const { return sync_owed_; }

  /// The fdatasync calls made so far and the wall time spent in them (the runner's cost per
  /// operation is reported with its sync part apart: experiment.json's "runner").
  [[nodiscard]] std::uint64_t syncs() const { return syncs_; }
  [[nodiscard]] double sync_seconds() const { return sync_seconds_; }

 private:
  void sync_now();
  // Writes the records waiting for their sync (pending_), if any.
  void write_pending();
  // Spare space: zeros written and synced up to at least `size` bytes (and some way beyond).
  void make_room(std::uint64_t size);

  std::filesystem::path path_;
  std::string line_;     // a record being written as JSON text (its capacity is reused)
  std::string pending_;  // records appended, not yet written: while held or a sync is owed
  int fd_ = -1;
  bool held_ = false;
  bool sync_owed_ = false;  // a record appended while held asked for a sync
  std::uint64_t syncs_ = 0;
  double sync_seconds_ = 0;
  std::uint64_t written_size_ = 0;      // the records' length: what is written
  std::uint64_t synced_size_ = 0;       // and what of it the last sync made durable
  Growth growth_ = Growth::as_written;  // as_written too once there is no room for spare space
  bool positioned_ = false;             // written at written_size_ (no O_APPEND): spare space
  std::uint64_t file_size_ = 0;         // written_size_ and the spare space after it
};

/// What a journal holds.
struct JournalContents {
  std::vector<nlohmann::json> records;
  /// A last line without its newline: a record being written when the process died. It was
  /// never acknowledged, so it is dropped (and the file truncated before appending again).
  bool torn_tail = false;
  /// Zeros after the records (Journal::Growth::spare_space, not closed: still running, or it
  /// died). Not torn: nothing was cut short; the file is cut back to its records on resuming.
  bool spare_space = false;
  std::uint64_t valid_bytes = 0;  ///< the length of the complete records
  std::uint64_t spare_from = 0;   ///< where the first zero byte is (with spare_space)
  /// Bytes other than zeros after the first zero: what a crash left of writes never synced (a
  /// torn tail too). Kept aside on resuming (journal.jsonl.after-zero-OFFSET), not just cut.
  bool after_zero = false;
};

/// Reads every record (none if there is no file), up to the first zero byte (spare space, or
/// what a crash left of writes beyond it that were never synced: a torn tail). Throws
/// std::runtime_error naming the line of a corrupt record (one that is complete but not a JSON
/// object: the journal was damaged, not merely cut short).
[[nodiscard]] JournalContents read_journal(const std::filesystem::path& path);
/// The same for a journal's text; `name` is the journal's in messages.
[[nodiscard]] JournalContents parse_journal(std::string_view text, const std::string& name);

/// Cuts a journal back to its complete records (after a torn tail).
void truncate_journal(const std::filesystem::path& path, std::uint64_t size);
/// Copies what a journal holds from `from` on, its last zeros left out, to `aside` (replaced
/// atomically): the bytes a crash left after the first zero byte, before the journal is cut.
void keep_after_zero(const std::filesystem::path& path, std::uint64_t from,
                     const std::filesystem::path& aside);

/// The time a journal record carries (`"at"`, docs/store.md): the wall clock in seconds since
/// the Unix epoch, to the millisecond. A record of when something happened, for people and the
/// web UI: nothing that decides reads it, and replay ignores it.
[[nodiscard]] double journal_time();

/// Replaces `path` with `text` atomically: readers see the old or the new file, never a mix.
/// Throws DiskError (the temporary file removed, `path` untouched).
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace hpsearch
