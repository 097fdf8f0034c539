#!/usr/bin/python3
"""Generates real JPEG photos (landscapes with sky, sun, hills and grain) for the demo.

Usage: sample-photos.py DIR COUNT
Deterministic per index, so reruns produce the same files.
"""
import math
import os
import random
import sys

from PIL import Image, ImageDraw, ImageFilter


def landscape(index: int, width: int = 2400, height: int = 1600) -> Image.Image:
    rng = random.Random(index)
    image = Image.new("RGB", (width, height))
    draw = ImageDraw.Draw(image)
    top = (rng.randint(20, 90), rng.randint(60, 140), rng.randint(150, 230))
    bottom = (rng.randint(200, 255), rng.randint(140, 210), rng.randint(90, 160))
    for y in range(height):
        t = y / height
        draw.line([(0, y), (width, y)], fill=tuple(int(a + (b - a) * t) for a, b in zip(top, bottom)))
    sun_x, sun_y, radius = rng.randint(200, width - 200), rng.randint(150, height // 2), rng.randint(60, 140)
    draw.ellipse([sun_x - radius, sun_y - radius, sun_x + radius, sun_y + radius], fill=(255, 236, 180))
    for layer in range(4):
        base = height * (0.45 + 0.13 * layer)
        amplitude = rng.randint(40, 160)
        phase = rng.random() * math.tau
        shade = 30 + 35 * layer
        colour = (shade // 2, shade + rng.randint(0, 40), shade // 2 + rng.randint(0, 30))
        points = [(0, height)]
        for x in range(0, width + 40, 40):
            y = base + amplitude * math.sin(x / (180 + 60 * layer) + phase) + rng.randint(-18, 18)
            points.append((x, y))
        points.append((width, height))
        draw.polygon(points, fill=colour)
    image = image.filter(ImageFilter.GaussianBlur(1.2))
    grain = Image.effect_noise((width, height), 24).convert("RGB")
    return Image.blend(image, grain, 0.06)


def main() -> None:
    directory, count = sys.argv[1], int(sys.argv[2])
    os.makedirs(directory, exist_ok=True)
    for index in range(1, count + 1):
        path = os.path.join(directory, f"IMG_{index:04d}.jpg")
        if not os.path.exists(path):
            landscape(index).save(path, "JPEG", quality=92)
    print(f"{count} photos in {directory}")


if __name__ == "__main__":
    main()
