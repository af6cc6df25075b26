//! A fast non-cryptographic hasher for the per-frame maps (registers,
//! block visits): SipHash's DoS resistance buys nothing there and it was
//! the largest single cost in profiles of concrete programs.

use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing (the scheme of rustc's FxHasher).
#[derive(Default, Clone, Copy)]
pub(super) struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(super) type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;
pub(super) type FastSet<K> = std::collections::HashSet<K, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::{FastHasher, FastMap};
    use std::hash::{Hash, Hasher};

    fn h<T: Hash>(t: &T) -> u64 {
        let mut s = FastHasher::default();
        t.hash(&mut s);
        s.finish()
    }

    #[test]
    fn distinct_keys_hash_apart_and_maps_work() {
        assert_ne!(h(&"ab"), h(&"ba"));
        assert_ne!(h(&1usize), h(&2usize));
        let mut m: FastMap<String, u32> = FastMap::default();
        for i in 0..1000 {
            m.insert(format!("r{i}"), i);
        }
        assert_eq!(m.len(), 1000);
        assert!((0..1000).all(|i| m[&format!("r{i}")] == i));
    }
}
