//! Quantisers: natural values to integers and back.
