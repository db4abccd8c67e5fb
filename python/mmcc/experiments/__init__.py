"""Experiments: sweeps over parameter grids (resumable, parallel), the publications'
reproductions, tables and reports."""
