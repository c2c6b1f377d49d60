"""The Modules panel: a layer table (output shapes, parameter counts) from the trace."""
