// wawoff2 ships no types; only its decoder is used (its encoder would load a second, larger module).
declare module 'wawoff2/decompress.js' {
  export default function decompress(woff2: Uint8Array): Promise<Uint8Array>;
}
