// Vite turns `import url from "./file?url"` into the served file's URL (a
// hashed file name in the production build). This tells TypeScript so.
declare module "*?url" {
  const url: string;
  export default url;
}
