"""Ink maps: how dark each pixel is against its paper, 0 on paper to 1 on full ink."""

from __future__ import annotations

import cv2
import numpy as np

PAPER_PERCENTILE = 90  # the paper's brightness in a box (boxes are small: one level serves)


def ink_map(gray: np.ndarray) -> np.ndarray:
    """(h, w) float32 ink, 0 on paper to 1 on full ink, relative to the image's paper."""
    paper = max(float(np.percentile(gray[::4, ::4], PAPER_PERCENTILE)), 1.0)
    return np.clip((paper - gray.astype(np.float32)) * (1 / paper), 0, 1)


def local_ink_map(gray: np.ndarray, window_px: int) -> np.ndarray:
    """(h, w) float32 ink, 0 on paper to 1 on full ink, relative to the paper around each pixel:
    its brightest within ``window_px`` (wider than any stroke), smoothed. Light that varies
    across the sheet (a glare in one corner, a shadow) cancels, as one paper level cannot."""
    kernel = np.ones((window_px, window_px), np.uint8)
    brightest = cv2.dilate(cv2.medianBlur(gray, 3), kernel)  # the median first: noise is not paper
    paper = cv2.blur(brightest.astype(np.float32), (window_px, window_px))
    paper = np.maximum(paper, 1.0)
    return np.clip((paper - gray.astype(np.float32)) / paper, 0, 1)
