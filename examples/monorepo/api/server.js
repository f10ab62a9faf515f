import { greet } from "../core/index.js";
console.log(greet("api"));
