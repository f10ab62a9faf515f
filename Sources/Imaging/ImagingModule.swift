/// Pixel buffers, kernels and codecs for runner's image steps.
public enum ImagingModule {}
