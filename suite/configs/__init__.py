"""The tuned APPO config library: layers (base -> family -> env), registry, resolution."""
