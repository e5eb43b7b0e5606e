"""The lab: training the networks on synthetic photos, and the benches that measure reading."""
