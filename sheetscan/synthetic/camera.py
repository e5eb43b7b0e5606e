"""The camera: photographs filled sheets lying on a table.

Perspective (a tilted sheet seen through a pinhole), any rotation, lens distortion, uneven
light and a shadow, blur, sensor noise and JPEG, at 2 to 12 megapixels. Heavy full-frame work
is done at a fraction of the resolution and scaled up, so a 12-megapixel photo stays fast.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from sheetscan.names import CAMERA_LEVELS
from sheetscan.reading.lens import field_points, shown_at, straightened, upsampled

FIELD_STEP = 8  # coarse fields (lens maps, light, texture) are computed every FIELD_STEP pixels
ASPECT = 4 / 3

# The levels, in the order of CAMERA_LEVELS. Ranges are (low, high), drawn uniformly.
LEVELS = dict(zip(CAMERA_LEVELS, (
    {"megapixels": (2, 8), "tilt_deg": (0, 2), "rotation_jitter_deg": 1.5, "any_rotation": 0.0, "fill": (0.88, 0.96),
     "distortion": (0, 0), "light": (0.93, 1.0), "shadow_chance": 0.0, "shadow": (1, 1),
     "blur_px": (0.3, 0.6), "noise": (0.5, 1.5), "jpeg": (88, 95)},
    {"megapixels": (2, 12), "tilt_deg": (0, 25), "rotation_jitter_deg": 8, "any_rotation": 0.2, "fill": (0.6, 0.88),
     "distortion": (-0.04, 0.04), "light": (0.7, 0.95), "shadow_chance": 0.5, "shadow": (0.6, 0.85),
     "blur_px": (0.4, 1.3), "noise": (1.5, 4), "jpeg": (70, 92)},
    {"megapixels": (2, 12), "tilt_deg": (20, 35), "rotation_jitter_deg": 15, "any_rotation": 0.4, "fill": (0.5, 0.8),
     "distortion": (-0.08, 0.08), "light": (0.5, 0.8), "shadow_chance": 0.9, "shadow": (0.45, 0.7),
     "blur_px": (1.0, 2.2), "noise": (3, 7), "jpeg": (55, 72)},
), strict=True))
# People frame a sheet upright or turned a quarter; a share of photos is at any angle.
QUARTER_TURNS = (0, 90, 180, 270)
QUARTER_TURN_WEIGHTS = (0.55, 0.15, 0.15, 0.15)
PLACEMENT_TRIES = 20  # poses drawn until the whole page lies inside the photo
COLOUR_CAST = 0.08  # largest drop of the blue (warm light) or red (cool light) channel
TABLES = ((92, 118, 150), (60, 80, 110), (70, 95, 80), (150, 150, 145), (40, 45, 50), (170, 185, 200))  # BGR


@dataclass(frozen=True)
class Pose:
    """Where one sheet lies in the photo: a homography from sheet pixels to (undistorted) photo pixels."""

    homography: np.ndarray  # (3, 3)
    tilt_deg: float
    rotation_deg: float


@dataclass(frozen=True)
class Photo:
    """A photographed table: the image and each sheet's four corners in photo pixels."""

    image: np.ndarray  # (height, width, 3) uint8 BGR, before JPEG
    corners: tuple[np.ndarray, ...]  # per sheet, (4, 2): top-left, top-right, bottom-right, bottom-left
    jpeg_quality: int
    params: dict


def _draw(rng: np.random.Generator, low_high: tuple[float, float]) -> float:
    return float(rng.uniform(*low_high))


def photo_size(rng: np.random.Generator, level: str, portrait: bool, megapixels: float | None = None) -> tuple[int, int]:
    """(width, height) of a photo of ``megapixels``, or of the level's megapixel range."""
    drawn = _draw(rng, LEVELS[level]["megapixels"])  # drawn always, so the stream stays the same
    pixels = (megapixels or drawn) * 1e6
    long_side = int(np.sqrt(pixels * ASPECT))
    short_side = int(long_side / ASPECT)
    return (short_side, long_side) if portrait else (long_side, short_side)


def _projected_corners(size: tuple[int, int], tilt_deg: float, tilt_axis_deg: float, rotation_deg: float) -> np.ndarray:
    """A sheet's corners seen through a pinhole after turning and tilting it (arbitrary scale)."""
    w, h = size
    corners = np.array([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0], [-w / 2, h / 2, 0]], float)
    turn = np.radians(rotation_deg)
    rz = np.array([[np.cos(turn), -np.sin(turn), 0], [np.sin(turn), np.cos(turn), 0], [0, 0, 1]])
    axis = np.array([np.cos(np.radians(tilt_axis_deg)), np.sin(np.radians(tilt_axis_deg)), 0])
    tilt, _ = cv2.Rodrigues(axis * np.radians(tilt_deg))
    points = corners @ rz.T @ tilt.T
    focal = 1.2 * max(w, h)
    depth = points[:, 2] + focal
    return focal * points[:, :2] / depth[:, None]


def place_sheet(rng: np.random.Generator, sheet_size: tuple[int, int], area: tuple[float, float, float, float],
                level: str) -> Pose:
    """A random pose that puts a sheet of ``sheet_size`` (w, h) inside ``area`` = (x, y, w, h)."""
    spec = LEVELS[level]
    tilt = _draw(rng, spec["tilt_deg"])
    if rng.random() < spec["any_rotation"]:
        rotation = rng.uniform(-180, 180)
    else:
        quarter = rng.choice(QUARTER_TURNS, p=QUARTER_TURN_WEIGHTS) if spec["any_rotation"] else 0
        rotation = quarter + rng.normal(0, spec["rotation_jitter_deg"])
    seen = _projected_corners(sheet_size, tilt, rng.uniform(0, 360), rotation)
    low, high = seen.min(axis=0), seen.max(axis=0)
    ax, ay, aw, ah = area
    scale = _draw(rng, spec["fill"]) * min(aw / (high[0] - low[0]), ah / (high[1] - low[1]))
    span = (high - low) * scale
    offset = np.array([ax + rng.uniform(0, aw - span[0]), ay + rng.uniform(0, ah - span[1])])
    target = (seen - low) * scale + offset
    source = page_corners(sheet_size).astype(np.float32)
    return Pose(cv2.getPerspectiveTransform(source, target.astype(np.float32)), tilt, float(rotation))


class Lens:
    """Radial distortion (division model): an undistorted point p shows at photo pixel q with
    p = c + (q - c) * (1 + k * |q - c|^2 / R^2), R the half diagonal."""

    def __init__(self, size: tuple[int, int], k: float):
        self.center = np.array(size, float) / 2
        self.k = k

    def undistort(self, q: np.ndarray) -> np.ndarray:
        return straightened(q, self.k, tuple(2 * self.center))

    def distort(self, p: np.ndarray, iterations: int = 8) -> np.ndarray:
        return shown_at(p, self.k, tuple(2 * self.center), iterations)


def _apply_homography(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), homography).reshape(points.shape)


def _outline(size: tuple[int, int], steps: int = 8) -> np.ndarray:
    """Points along a sheet's border (its image under a lens is not a quadrilateral)."""
    w, h = size
    t = np.linspace(0, 1, steps, endpoint=False)
    return np.concatenate([np.stack([t * w, 0 * t], 1), np.stack([w + 0 * t, t * h], 1),
                           np.stack([w - t * w, h + 0 * t], 1), np.stack([0 * t, h - t * h], 1)])


def page_corners(size: tuple[int, int]) -> np.ndarray:
    """A sheet image's physical corners (top-left, top-right, bottom-right, bottom-left) in
    pixel-centre coordinates: pixel (0, 0) covers -0.5 to 0.5."""
    w, h = size
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], float) - 0.5


def _warp_sheet(photo: np.ndarray, sheet: np.ndarray, pose: Pose, lens: Lens) -> np.ndarray:
    """Paint ``sheet`` into ``photo`` through the pose and the lens; return its 4 corners."""
    size = (sheet.shape[1], sheet.shape[0])
    border = lens.distort(_apply_homography(pose.homography, _outline(size)))
    x0, y0 = np.maximum(np.floor(border.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(border.max(axis=0)).astype(int) + 2, (photo.shape[1], photo.shape[0]))
    q = field_points((x0, y0), (x1 - x0, y1 - y0), FIELD_STEP)
    source = _apply_homography(np.linalg.inv(pose.homography), lens.undistort(q)).astype(np.float32)
    full = upsampled(source, (x1 - x0, y1 - y0), FIELD_STEP)
    roi = photo[y0:y1, x0:x1]
    cv2.remap(sheet, full[..., 0], full[..., 1], cv2.INTER_LINEAR, dst=roi, borderMode=cv2.BORDER_TRANSPARENT)
    return lens.distort(_apply_homography(pose.homography, page_corners(size)))


def _coarse(size: tuple[int, int]) -> tuple[int, int]:
    return max(2, size[0] // FIELD_STEP), max(2, size[1] // FIELD_STEP)


def table_background(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A table top: a base colour with a soft texture and wood-like streaks, (h, w, 3) uint8."""
    cw, ch = _coarse(size)
    base = np.array(TABLES[rng.integers(len(TABLES))], np.float32) * rng.uniform(0.8, 1.15)
    noise = cv2.GaussianBlur(rng.normal(0, 1, (ch, cw)).astype(np.float32), (0, 0), 3)
    angle = rng.uniform(0, np.pi)
    yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
    streaks = np.sin((xx * np.cos(angle) + yy * np.sin(angle)) * rng.uniform(0.2, 0.6) + 3 * noise)
    texture = 1 + 0.06 * noise + 0.05 * streaks * rng.uniform(0, 1)
    coarse = np.clip(base[None, None, :] * texture[..., None], 0, 255).astype(np.uint8)
    return cv2.resize(coarse, size, interpolation=cv2.INTER_LINEAR)


def light_field(rng: np.random.Generator, size: tuple[int, int], level: str) -> np.ndarray:
    """Multiplicative light, (h, w, 3) uint8 where 255 is full light: gradient, vignette,
    colour cast and perhaps a soft shadow."""
    spec = LEVELS[level]
    cw, ch = _coarse(size)
    yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
    u, v = xx / cw - 0.5, yy / ch - 0.5
    angle = rng.uniform(0, 2 * np.pi)
    low = _draw(rng, spec["light"])
    gradient = low + (1 - low) * (0.5 + (u * np.cos(angle) + v * np.sin(angle)))
    light = np.clip(gradient, low, 1) * (1 - rng.uniform(0, 0.25) * (u * u + v * v))
    if rng.random() < spec["shadow_chance"]:
        shadow = np.zeros((ch, cw), np.float32)
        center = rng.uniform(0, 1, 2) * (cw, ch)
        radii = rng.uniform(0.2, 0.6, 2) * (cw, ch)
        cv2.ellipse(shadow, (int(center[0]), int(center[1])), (int(radii[0]), int(radii[1])),
                    rng.uniform(0, 180), 0, 360, 1.0, -1)
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(cw, ch) * rng.uniform(0.02, 0.06))
        light *= 1 - (1 - _draw(rng, spec["shadow"])) * shadow
    temperature = rng.uniform(-1, 1)  # > 0 warm, < 0 cool
    cast = np.array([1 - COLOUR_CAST * max(temperature, 0), 1 - COLOUR_CAST / 4 * abs(temperature),
                     1 - COLOUR_CAST * max(-temperature, 0)], np.float32)  # B, G, R
    coarse = np.clip(light[..., None] * cast * 255, 0, 255).astype(np.uint8)
    return cv2.resize(coarse, size, interpolation=cv2.INTER_LINEAR)


def _grid_areas(count: int, size: tuple[int, int]) -> list[tuple[float, float, float, float]]:
    """Split the photo into ``count`` areas, one per sheet, in reading order."""
    w, h = size
    cols = max(1, round(np.sqrt(count * w / h)))
    rows = int(np.ceil(count / cols))
    return [((i % cols) * w / cols, (i // cols) * h / rows, w / cols, h / rows) for i in range(count)]


def photograph(sheets: list[np.ndarray], level: str, size: tuple[int, int], rng: np.random.Generator) -> Photo:
    """Photograph ``sheets`` (each (h, w, 3) uint8) lying apart on a table, ``size`` = (w, h)."""
    spec = LEVELS[level]
    image = table_background(rng, size)
    lens = Lens(size, _draw(rng, spec["distortion"]))
    corners = []
    poses = []
    for sheet, area in zip(sheets, _grid_areas(len(sheets), size), strict=True):
        sheet_size = (sheet.shape[1], sheet.shape[0])
        for _ in range(PLACEMENT_TRIES):  # the lens may push a corner out of the frame: try again
            pose = place_sheet(rng, sheet_size, area, level)
            seen = lens.distort(_apply_homography(pose.homography, _outline(sheet_size)))
            if (seen >= 0).all() and (seen <= np.array(size) - 1).all():
                break
        corners.append(_warp_sheet(image, sheet, pose, lens))
        poses.append(pose)
    image = cv2.multiply(image, light_field(rng, size, level), scale=1 / 255)
    blur = _draw(rng, spec["blur_px"])
    image = cv2.GaussianBlur(image, (0, 0), blur)
    noise_sigma = _draw(rng, spec["noise"])
    cv2.setRNGSeed(int(rng.integers(2**31)))  # cv2's generator is the fast one at 12 megapixels
    noise = cv2.randn(np.empty_like(image, np.int8), (0, 0, 0), (noise_sigma,) * 3)
    image = cv2.add(image, noise, dtype=cv2.CV_8U)
    params = {"level": level, "size": list(size), "distortion": round(lens.k, 4), "blur_px": round(blur, 3),
              "noise": round(noise_sigma, 3),
              "poses": [{"tilt_deg": round(p.tilt_deg, 2), "rotation_deg": round(p.rotation_deg, 2)} for p in poses]}
    quality = int(rng.integers(spec["jpeg"][0], spec["jpeg"][1] + 1))
    return Photo(image, tuple(corners), quality, params)
