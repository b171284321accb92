import { create } from 'qrcode';

/**
 * A QR code drawn here, in the page, from its text (an otpauth:// URL holding
 * a TOTP secret): nothing is sent to a QR service. An SVG of one path, dark
 * modules on a light square with the 4-module quiet zone scanners expect.
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const { size, data } = create(text, { errorCorrectionLevel: 'M' }).modules;
  const quiet = 4;
  let path = '';
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) if (data[row * size + col]) path += `M${col + quiet} ${row + quiet}h1v1h-1z`;
  }
  const side = size + 2 * quiet;
  return (
    <svg className="qr" role="img" aria-label={label} viewBox={`0 0 ${side} ${side}`} shapeRendering="crispEdges">
      <rect width={side} height={side} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
