//! The GNU hash table (`.gnu.hash`) of an ELF file, read in place: ld.so's `do_lookup_x` —
//! the Bloom filter first, then the bucket's run of the chain — finds the symbols that may bear a
//! name without touching the rest of `.dynsym`.

use super::SymbolTable;

/// The file's GNU hash table (`.gnu.hash`), as offsets into the file.
#[derive(Debug, Clone, Copy)]
pub(super) struct GnuHash {
    nbuckets: u32,
    pub(super) symoffset: u32,
    bloom: usize,
    bloom_words: u32,
    bloom_shift: u32,
    buckets: usize,
    chains: usize,
}

/// ld.so's `dl_new_hash` (the GNU hash of a symbol name).
fn gnu_hash(name: &[u8]) -> u32 {
    name.iter().fold(5381u32, |h, &c| {
        h.wrapping_mul(33).wrapping_add(u32::from(c))
    })
}

impl SymbolTable {
    pub(super) fn read_gnu_hash(&self, at: usize) -> Option<GnuHash> {
        let nbuckets = self.u32_at(at)?;
        let symoffset = self.u32_at(at + 4)?;
        let bloom_words = self.u32_at(at + 8)?;
        let bloom_shift = self.u32_at(at + 12)?;
        let word = if self.is_64 { 8 } else { 4 };
        let bloom = at + 16;
        let buckets = bloom.checked_add((bloom_words as usize).checked_mul(word)?)?;
        let chains = buckets.checked_add((nbuckets as usize).checked_mul(4)?)?;
        (nbuckets > 0).then_some(GnuHash {
            nbuckets,
            symoffset,
            bloom,
            bloom_words,
            bloom_shift,
            buckets,
            chains,
        })
    }

    /// The symbol indices whose GNU hash matches `name`'s (ld.so's `do_lookup_x`).
    pub(super) fn hash_chain<'a>(
        &'a self,
        h: &GnuHash,
        name: &[u8],
    ) -> impl Iterator<Item = usize> + 'a {
        let hash = gnu_hash(name);
        let bits = if self.is_64 { 64 } else { 32 };
        let mut next = None;
        if self.bloom_admits(h, hash, bits) {
            let bucket = self.u32_at(h.buckets + 4 * (hash % h.nbuckets) as usize);
            next = bucket.filter(|&b| b != 0 && b >= h.symoffset);
        }
        let (symoffset, chains) = (h.symoffset, h.chains);
        std::iter::from_fn(move || {
            loop {
                let index = next?;
                let entry = self.u32_at(chains + 4 * (index - symoffset) as usize);
                next = entry
                    .filter(|e| e & 1 == 0)
                    .and_then(|_| index.checked_add(1));
                match entry {
                    Some(e) if e | 1 == hash | 1 => return Some(index as usize),
                    Some(_) => continue,
                    None => return None,
                }
            }
        })
    }

    fn bloom_admits(&self, h: &GnuHash, hash: u32, bits: u32) -> bool {
        if h.bloom_words == 0 {
            return true;
        }
        let word_index = ((hash / bits) % h.bloom_words) as usize;
        let mask = (1u64 << (hash % bits)) | (1u64 << ((hash >> (h.bloom_shift % 32)) % bits));
        let word = if self.is_64 {
            self.u64_at(h.bloom + 8 * word_index)
        } else {
            self.u32_at(h.bloom + 4 * word_index).map(u64::from)
        };
        word.is_none_or(|w| w & mask == mask)
    }
}
