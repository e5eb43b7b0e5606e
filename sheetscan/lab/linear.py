"""A multinomial logistic regression (softmax) classifier on standardised features.

The baseline the cell networks are compared with (``sheetscan train --compare-linear``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import minimize

from sheetscan.reading.cells import PATCH_PX


@dataclass(frozen=True)
class SoftmaxModel:
    """Class probabilities from features: softmax((x - mean) / scale @ weights + bias)."""

    weights: np.ndarray  # (F, K)
    bias: np.ndarray  # (K,)
    mean: np.ndarray  # (F,)
    scale: np.ndarray  # (F,)
    classes: tuple[str, ...]

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """(n, K) class probabilities of (n, F) features."""
        logits = ((features - self.mean) / self.scale) @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)


def fit_softmax(features: np.ndarray, labels: np.ndarray, classes: tuple[str, ...], *,
                l2: float = 1e-3, max_iterations: int = 400) -> SoftmaxModel:
    """Fit a softmax classifier to (n, F) ``features`` and (n,) integer ``labels``."""
    mean = features.mean(axis=0)
    scale = features.std(axis=0) + 1e-6
    x = ((features - mean) / scale).astype(np.float64)
    n, dims = x.shape
    k = len(classes)
    onehot = np.eye(k)[labels]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        weights, bias = theta[: dims * k].reshape(dims, k), theta[dims * k :]
        logits = x @ weights + bias
        logits -= logits.max(axis=1, keepdims=True)
        log_norm = np.log(np.exp(logits).sum(axis=1, keepdims=True))
        log_p = logits - log_norm
        value = -(onehot * log_p).sum() / n + 0.5 * l2 * (weights**2).sum()
        residual = (np.exp(log_p) - onehot) / n
        gradient = np.concatenate([(x.T @ residual + l2 * weights).ravel(), residual.sum(axis=0)])
        return value, gradient

    result = minimize(loss, np.zeros(dims * k + k), jac=True, method="L-BFGS-B",
                      options={"maxiter": max_iterations})
    weights, bias = result.x[: dims * k].reshape(dims, k), result.x[dims * k :]
    return SoftmaxModel(weights.astype(np.float32), bias.astype(np.float32), mean.astype(np.float32),
                        scale.astype(np.float32), classes)


COARSE_PX = 12  # side of the coarse ink map appended to the HOG features
_HOG = cv2.HOGDescriptor((PATCH_PX, PATCH_PX), (16, 16), (8, 8), (8, 8), 9)


def patch_features(patches: np.ndarray) -> np.ndarray:
    """(n, F) float32 features of (n, size, size) ink patches: HOG and a coarse ink map. The
    baseline the networks were compared with (``sheetscan train --compare-linear``)."""
    features = []
    for patch in patches:
        image = cv2.resize(np.clip(patch * 255, 0, 255).astype(np.uint8), (PATCH_PX, PATCH_PX))
        hog = _HOG.compute(image).ravel()
        coarse = cv2.resize(patch, (COARSE_PX, COARSE_PX), interpolation=cv2.INTER_AREA).ravel()
        features.append(np.concatenate([hog, coarse]))
    return np.asarray(features, np.float32)

