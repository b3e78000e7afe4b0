//! Stage: bytes → protobuf messages. The messages of pprof's `profile.proto`, written by
//! hand as `prost` derives from the field numbers of
//! <https://github.com/google/pprof/blob/main/proto/profile.proto> (Copyright 2016 Google
//! Inc., Apache License 2.0), so that building needs no `protoc`.
//!
//! Only the fields flametui reads are declared; prost skips the others. The loader decodes
//! [`Header`] whole and every entry of the repeated tables on its own. Strings of the
//! string table are kept as bytes and decoded lossily, so that invalid UTF-8 in a name is
//! a replacement character rather than a decode error. To follow a new version of the
//! schema, add the field with its number and type here (`go tool pprof -raw` shows what a
//! file holds).

/// `message Profile`'s fields that are not repeated: what the loader decodes with prost
/// in one go. prost skips the repeated tables (fields 1 to 6), which are decoded one entry
/// at a time from the bytes (see `super::budget`), so that their number is checked before
/// any of them is allocated.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Header {
    /// 9: when the profile was taken, in ns since the epoch.
    #[prost(int64, tag = "9")]
    pub time_nanos: i64,
    /// 10: how long the profile covers, in ns.
    #[prost(int64, tag = "10")]
    pub duration_nanos: i64,
    /// 11: what the period counts.
    #[prost(message, optional, tag = "11")]
    pub period_type: Option<ValueType>,
    /// 12: the sampling period, in `period_type` units.
    #[prost(int64, tag = "12")]
    pub period: i64,
    /// 14: string index of the sample type shown by default.
    #[prost(int64, tag = "14")]
    pub default_sample_type: i64,
}

/// `message Profile`, without its samples (for writing profiles: tests, benchmarks; the
/// loader reads [`Header`] and the tables entry by entry).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Profile {
    /// 1: what each value of a sample means, one entry per value.
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    // 2: the samples (`repeated Sample`) are not decoded with the rest: the loader reads
    // them one at a time from the bytes (`super::each_sample`), so that a profile of
    // millions of samples never holds them all decoded.
    /// 3: the memory mappings (binaries, libraries).
    #[prost(message, repeated, tag = "3")]
    pub mapping: Vec<Mapping>,
    /// 4: the locations (addresses with their lines).
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    /// 5: the functions.
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    /// 6: every string of the profile; index 0 is the empty string.
    #[prost(bytes = "vec", repeated, tag = "6")]
    pub string_table: Vec<Vec<u8>>,
    /// 9: when the profile was taken, in ns since the epoch.
    #[prost(int64, tag = "9")]
    pub time_nanos: i64,
    /// 10: how long the profile covers, in ns.
    #[prost(int64, tag = "10")]
    pub duration_nanos: i64,
    /// 11: what the period counts.
    #[prost(message, optional, tag = "11")]
    pub period_type: Option<ValueType>,
    /// 12: the sampling period, in `period_type` units.
    #[prost(int64, tag = "12")]
    pub period: i64,
    /// 14: string index of the sample type shown by default.
    #[prost(int64, tag = "14")]
    pub default_sample_type: i64,
}

/// `message ValueType`: string indices of a type and its unit.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueType {
    /// 1: e.g. `cpu`, `alloc_space`.
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    /// 2: e.g. `nanoseconds`, `bytes`, `count`.
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

/// `message Sample`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sample {
    /// 1: location ids, the leaf first.
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    /// 2: one value per sample type.
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
    /// 3: labels (thread, goroutine, bytes, …).
    #[prost(message, repeated, tag = "3")]
    pub label: Vec<Label>,
}

/// `message Label`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Label {
    /// 1: string index of the key.
    #[prost(int64, tag = "1")]
    pub key: i64,
    /// 2: string index of a string value.
    #[prost(int64, tag = "2")]
    pub str: i64,
    /// 3: a numeric value.
    #[prost(int64, tag = "3")]
    pub num: i64,
}

/// `message Mapping`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Mapping {
    /// 1: unique, non-zero id.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// 5: string index of the mapped file's path.
    #[prost(int64, tag = "5")]
    pub filename: i64,
}

/// `message Location`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Location {
    /// 1: unique, non-zero id.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// 2: the mapping it is in (0: none).
    #[prost(uint64, tag = "2")]
    pub mapping_id: u64,
    /// 3: the instruction address.
    #[prost(uint64, tag = "3")]
    pub address: u64,
    /// 4: the lines at this address, the innermost (inlined) function first.
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
}

/// `message Line`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Line {
    /// 1: the function's id.
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
    /// 2: the source line.
    #[prost(int64, tag = "2")]
    pub line: i64,
}

/// `message Function`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Function {
    /// 1: unique, non-zero id.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// 2: string index of the name as shown (demangled).
    #[prost(int64, tag = "2")]
    pub name: i64,
    /// 3: string index of the name as in the binary (mangled).
    #[prost(int64, tag = "3")]
    pub system_name: i64,
    /// 4: string index of the source file.
    #[prost(int64, tag = "4")]
    pub filename: i64,
    /// 5: the function's first line in its file (0: unknown).
    #[prost(int64, tag = "5")]
    pub start_line: i64,
}
