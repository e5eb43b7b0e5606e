"""The trained networks: one folder per model set, one ONNX file per network (sheetscan.models in the wheel)."""
