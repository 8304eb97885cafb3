//! A store-only (uncompressed) zip writer, for the UI's *Export Flink job* download.
//!
//! Contract: [`store`] writes a valid PKZIP archive (APPNOTE 6.3: local file headers, central
//! directory, end of central directory; method 0 = stored, CRC-32 of each file, UTF-8 names
//! flagged with bit 11) that `unzip` and every browser-side tool open. An entry marked
//! executable gets Unix mode 0755 (made by Unix), others 0644. No compression: an export is a
//! few tens of kilobytes of text. No ZIP64: archives stay far below 4 GiB and 65,535 entries.

use crate::scenario::link::crc32;

fn u16le(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn u32le(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// A zip of `(path, bytes, executable)` entries, stored.
pub fn store(entries: &[(String, &[u8], bool)]) -> Vec<u8> {
    // 1980-01-01 00:00 in DOS time: the archive is the same for the same files.
    const DOS_TIME: u16 = 0;
    const DOS_DATE: u16 = (1 << 5) | 1;
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (path, bytes, exec) in entries {
        let offset = out.len() as u32;
        let crc = crc32(bytes);
        let size = bytes.len() as u32;
        let name = path.as_bytes();
        // Local file header.
        u32le(&mut out, 0x0403_4b50);
        u16le(&mut out, 20); // version needed
        u16le(&mut out, 1 << 11); // UTF-8 names
        u16le(&mut out, 0); // stored
        u16le(&mut out, DOS_TIME);
        u16le(&mut out, DOS_DATE);
        u32le(&mut out, crc);
        u32le(&mut out, size);
        u32le(&mut out, size);
        u16le(&mut out, name.len() as u16);
        u16le(&mut out, 0);
        out.extend_from_slice(name);
        out.extend_from_slice(bytes);
        // Central directory entry.
        u32le(&mut central, 0x0201_4b50);
        u16le(&mut central, (3 << 8) | 20); // made by Unix, spec 2.0
        u16le(&mut central, 20);
        u16le(&mut central, 1 << 11);
        u16le(&mut central, 0);
        u16le(&mut central, DOS_TIME);
        u16le(&mut central, DOS_DATE);
        u32le(&mut central, crc);
        u32le(&mut central, size);
        u32le(&mut central, size);
        u16le(&mut central, name.len() as u16);
        u16le(&mut central, 0); // extra
        u16le(&mut central, 0); // comment
        u16le(&mut central, 0); // disk
        u16le(&mut central, 0); // internal attributes
        let mode: u32 = if *exec { 0o100755 } else { 0o100644 };
        u32le(&mut central, mode << 16);
        u32le(&mut central, offset);
        central.extend_from_slice(name);
    }
    let cd_offset = out.len() as u32;
    let cd_size = central.len() as u32;
    out.extend_from_slice(&central);
    u32le(&mut out, 0x0605_4b50);
    u16le(&mut out, 0);
    u16le(&mut out, 0);
    u16le(&mut out, entries.len() as u16);
    u16le(&mut out, entries.len() as u16);
    u32le(&mut out, cd_size);
    u32le(&mut out, cd_offset);
    u16le(&mut out, 0);
    out
}
