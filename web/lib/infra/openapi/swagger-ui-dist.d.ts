/** swagger-ui-dist ships no types; its path helper returns the folder of its static files. */
declare module "swagger-ui-dist/absolute-path.js" {
  const getAbsoluteFSPath: () => string;
  export default getAbsoluteFSPath;
}
