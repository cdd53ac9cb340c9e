/**
 * Avatar images as Zulip makes them (zerver/lib/thumbnail.py resize_avatar
 * and libvips_check_image): the image's first frame, scaled (up if need be)
 * and cropped at its centre to a square, as PNG, at Zulip's two sizes.
 */
import sharp from "sharp";
import { DEFAULT_AVATAR_SIZE, MEDIUM_AVATAR_SIZE, ZulipError } from "@teamchat/shared";

/** Zulip's THUMBNAIL_ACCEPT_IMAGE_TYPES: what an upload may say it is to be read as an image. */
export const AVATAR_IMAGE_TYPES: ReadonlySet<string> = new Set([
  "image/avif",
  "image/gif",
  "image/heic",
  "image/jpeg",
  "image/png",
  "image/tiff",
  "image/webp",
]);

/** The decoders Zulip leaves libvips (heif for AVIF and HEIC): SVG and the others are refused unread. */
const DECODED_FORMATS: ReadonlySet<string> = new Set(["heif", "gif", "jpeg", "png", "tiff", "webp"]);

/** Zulip's IMAGE_BOMB_TOTAL_PIXELS: larger images (every frame counted) are refused before decoding. */
const IMAGE_BOMB_TOTAL_PIXELS = 90_000_000;

/** Zulip's BadImageError. */
export const badImage = (msg: string) => new ZulipError("BAD_IMAGE", msg, 400);

export interface AvatarImages {
  /** DEFAULT_AVATAR_SIZE square: `<path>.png` */
  small: Buffer;
  /** MEDIUM_AVATAR_SIZE square: `<path>-medium.png` */
  medium: Buffer;
}

const square = (data: Buffer, size: number): Promise<Buffer> =>
  sharp(data, { limitInputPixels: IMAGE_BOMB_TOTAL_PIXELS })
    .rotate()
    .resize(size, size, { fit: "cover", position: "centre" })
    .png()
    .toBuffer();

export async function avatarImages(data: Buffer): Promise<AvatarImages> {
  let metadata: sharp.Metadata;
  try {
    metadata = await sharp(data).metadata();
  } catch {
    throw badImage("Could not decode image; did you upload an image file?");
  }
  if (!DECODED_FORMATS.has(metadata.format)) throw badImage("Could not decode image; did you upload an image file?");
  if (metadata.width * metadata.height * (metadata.pages ?? 1) > IMAGE_BOMB_TOTAL_PIXELS) {
    throw badImage("Image size exceeds limit.");
  }
  try {
    const [small, medium] = await Promise.all([square(data, DEFAULT_AVATAR_SIZE), square(data, MEDIUM_AVATAR_SIZE)]);
    return { small, medium };
  } catch {
    throw badImage("Image is corrupted or truncated");
  }
}
