"""Named scenario presets (TOML files shipped with mmcc)."""
