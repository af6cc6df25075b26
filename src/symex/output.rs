//! Results directory (`concord-out-N/`, `concord-last`).
