"""NWB knowledge: format detection, conversion with neuroconv, validation with nwbinspector and
metadata normalisation. No Django here, so it can be tested and benchmarked on its own.

Import the submodules directly (`conversions.nwb.detection`, ...): neuroconv and nwbinspector are
only imported where they are used, so a web process that only normalises text stays light.
"""
