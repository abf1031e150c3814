// The package ships no types; this is the part the nick rules use.
declare module "unicode-confusables" {
  /** Maps every character to its UTS #39 confusables.txt prototype (dropping zero-width ones). */
  export function rectifyConfusion(text: string): string;
  export function isConfusing(text: string): boolean;
}
