#!/bin/sh
# Writes the console's PNG icons (web/icons/) from web/icons/icon.svg with rsvg-convert
# (Debian: librsvg2-bin). Run it after changing the SVG and commit the PNGs.
# - icon-N.png: the icon as drawn (rounded corners, transparent outside), for the manifest
#   ("any") and the browsers' tabs.
# - apple-touch-icon-N.png: square and full-bleed: iOS rounds the corners itself and fills
#   what is transparent with black.
# - icon-maskable-N.png: full-bleed, the drawing scaled to 80 % so that all of it stays in
#   the safe zone (the centred circle of 80 % of the width) whatever mask Android applies.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
icons="$here/web/icons"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The drawing without its rounded background, to put on a square one.
sed -n '/<rect x=/p; /<circle/p' "$icons/icon.svg" > "$work/drawing"
{
  echo '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#2f5bd3"/>'
  cat "$work/drawing"
  echo '</svg>'
} > "$work/square.svg"
{
  echo '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#2f5bd3"/>'
  echo '<g transform="translate(32 32) scale(0.8) translate(-32 -32)">'
  cat "$work/drawing"
  echo '</g></svg>'
} > "$work/maskable.svg"

for size in 48 72 96 128 144 152 167 180 192 256 384 512; do
  rsvg-convert -w "$size" -h "$size" "$icons/icon.svg" -o "$icons/icon-$size.png"
done
for size in 120 152 167 180; do
  rsvg-convert -w "$size" -h "$size" "$work/square.svg" -o "$icons/apple-touch-icon-$size.png"
done
for size in 192 512; do
  rsvg-convert -w "$size" -h "$size" "$work/maskable.svg" -o "$icons/icon-maskable-$size.png"
done
