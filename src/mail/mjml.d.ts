// mjml 5 ships no type declarations (and @types/mjml describes the synchronous v4 API).
declare module 'mjml' {
  interface MjmlError {
    line: number;
    message: string;
    tagName: string;
    formattedMessage: string;
  }
  export default function mjml2html(
    mjml: string,
    options?: {
      validationLevel?: 'strict' | 'soft' | 'skip';
      keepComments?: boolean;
      minify?: boolean;
    },
  ): Promise<{ html: string; errors: MjmlError[] }>;
}
