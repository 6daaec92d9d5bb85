// The 3-D view: one three.js mesh per collision geometry (z up, meters),
// posed from a chunk's frame; contact points and force arrows.
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";

// A stable color per body name (static geometry is gray).
function bodyColor(name) {
  if (name === "world") return new THREE.Color(0x9aa0a6);
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return new THREE.Color().setHSL((hash % 360) / 360, 0.55, 0.55);
}

// three.js builds capsules and cylinders along y; ours run along z.
function alongZ(geometry) {
  geometry.rotateX(Math.PI / 2);
  return geometry;
}

function convexMesh(vertices, triangles) {
  const positions = [];
  for (const index of triangles) positions.push(...vertices.slice(3 * index, 3 * index + 3));
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.Float32BufferAttribute(positions, 3));
  geometry.computeVertexNormals(); // flat faces: the triangles share no vertex
  return geometry;
}

// `detail` scales the tessellation of round shapes (coarser in large scenes).
function shapeGeometry(g, detail) {
  const [a, b, c] = g.size;
  const segments = (n) => Math.max(6, Math.round(n * detail));
  switch (g.shape) {
    case "sphere":
      return new THREE.SphereGeometry(a, segments(32), segments(16));
    case "ellipsoid": // semi-axes a, b, c
      return new THREE.SphereGeometry(1, segments(32), segments(16)).scale(a, b, c);
    case "box":
      return new THREE.BoxGeometry(a, b, c);
    case "capsule":
      return alongZ(new THREE.CapsuleGeometry(a, b, segments(8), segments(24)));
    case "cylinder":
      return alongZ(new THREE.CylinderGeometry(a, a, b, segments(32)));
    case "halfspace":
      return new THREE.PlaneGeometry(40, 40); // in G's xy plane, normal +z
    case "mesh":
    case "sdf": // an SDF shape's display surface, a closed triangle mesh
      return convexMesh(g.vertices, g.triangles);
    default:
      throw new Error(`unknown shape ${g.shape}`);
  }
}

const position = new THREE.Vector3(), rotation = new THREE.Quaternion();
const unit = new THREE.Vector3(1, 1, 1);

// Places `object` at pose p = [x, y, z, qw, qx, qy, qz] (X_WG).
function setPose(object, p) {
  position.set(p[0], p[1], p[2]);
  rotation.set(p[4], p[5], p[6], p[3]).normalize();
  object.matrix.compose(position, rotation, unit);
  object.matrixWorldNeedsUpdate = true;
}

export class SceneView {
  constructor(container, meta) {
    this.meta = meta;
    this.renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio);
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0xf4f5f7);
    this.camera = new THREE.PerspectiveCamera(45, 1, 0.01, 500);
    this.camera.up.set(0, 0, 1);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener("change", () => this.render());
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8090a0, 2.0));
    const sun = new THREE.DirectionalLight(0xffffff, 1.5);
    sun.position.set(3, -4, 8);
    this.scene.add(sun);
    const grid = new THREE.GridHelper(20, 40, 0x8a8f98, 0xc8ccd2);
    grid.rotateX(Math.PI / 2); // into the z = 0 plane
    this.scene.add(grid);
    this.addGeometries();
    this.addContacts();
    this.frameCamera();
    this.resize(container);
    new ResizeObserver(() => this.resize(container)).observe(container);
  }

  addGeometries() {
    this.objects = [];
    this.frames = [];
    // Round shapes coarser beyond 400 geometries: about as many triangles as
    // 400 fine spheres (400k), whatever the number of bodies.
    const detail = Math.min(1, Math.sqrt(400 / Math.max(1, this.meta.geometries.length)));
    for (const g of this.meta.geometries) {
      // Static geometry (walls, bins) is glass-like, so that what it holds shows.
      const isStatic = g.body === "world";
      const isGround = g.shape === "halfspace";
      const material = new THREE.MeshStandardMaterial({
        color: bodyColor(g.body),
        roughness: 0.7,
        side: isStatic ? THREE.DoubleSide : THREE.FrontSide,
        transparent: isStatic,
        opacity: isGround ? 0.35 : isStatic ? 0.2 : 1.0,
        depthWrite: !isStatic,
        polygonOffset: isGround,
        polygonOffsetFactor: 1,
      });
      const object = new THREE.Mesh(shapeGeometry(g, detail), material);
      object.userData.static = isStatic;
      object.matrixAutoUpdate = false;
      setPose(object, this.meta.first_poses[this.objects.length]); // kept unless it moves
      const axes = new THREE.AxesHelper(Math.max(0.05, 1.5 * g.radius));
      axes.visible = false;
      object.add(axes);
      this.objects.push(object);
      this.frames.push(axes);
      this.scene.add(object);
    }
  }

  addContacts() {
    const capacity = 1; // grows with the largest frame seen
    this.points = new THREE.Points(
      new THREE.BufferGeometry(),
      new THREE.PointsMaterial({ color: 0xd62728, size: 6, sizeAttenuation: false }),
    );
    this.arrows = new THREE.LineSegments(
      new THREE.BufferGeometry(),
      new THREE.LineBasicMaterial({ color: 0x1f3fbf }),
    );
    this.allocateContacts(capacity);
    this.points.frustumCulled = this.arrows.frustumCulled = false;
    this.scene.add(this.points, this.arrows);
    this.forceScale = 0.1; // m per N, set from the data (setForceScale)
  }

  allocateContacts(capacity) {
    this.contactCapacity = capacity;
    this.points.geometry.setAttribute(
      "position", new THREE.BufferAttribute(new Float32Array(3 * capacity), 3));
    this.arrows.geometry.setAttribute(
      "position", new THREE.BufferAttribute(new Float32Array(6 * capacity), 3));
  }

  // Camera on the moving bodies' bounding box at the first frame (all
  // geometry when nothing moves).
  frameCamera() {
    const all = this.meta.geometries
      .map((g, i) => ({ g, p: this.meta.first_poses[i] }))
      .filter(({ g }) => g.shape !== "halfspace");
    const moving = all.filter(({ g }) => g.body !== "world");
    const box = new THREE.Box3();
    for (const { g, p } of moving.length > 0 ? moving : all) {
      box.expandByPoint(new THREE.Vector3(p[0] - g.radius, p[1] - g.radius, p[2] - g.radius));
      box.expandByPoint(new THREE.Vector3(p[0] + g.radius, p[1] + g.radius, p[2] + g.radius));
    }
    if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, 0), new THREE.Vector3(1, 1, 1));
    const center = box.getCenter(new THREE.Vector3());
    const size = Math.max(box.getSize(new THREE.Vector3()).length(), 0.1); // 10 cm parts fill it
    this.controls.target.copy(center);
    this.camera.position.set(center.x + 1.1 * size, center.y - 1.6 * size, center.z + 1.0 * size);
    this.camera.near = size / 200;
    this.camera.far = size * 50;
    this.camera.updateProjectionMatrix();
    this.controls.update();
  }

  resize(container) {
    const width = container.clientWidth || 1, height = container.clientHeight || 1;
    this.renderer.setSize(width, height);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  // Poses and contacts of frame `frame` (in chunk `chunk`): the chunk
  // carries the poses of the moving geometries (meta.moving) only.
  show(chunk, frame) {
    const local = frame - chunk.first;
    const M = chunk.moving;
    for (let m = 0; m < M; ++m) {
      setPose(this.objects[this.meta.moving[m]], chunk.poses.subarray((local * M + m) * 7, (local * M + m + 1) * 7));
    }
    this.showContacts(chunk, local);
    this.render();
  }

  showContacts(chunk, local) {
    const begin = chunk.offsets[local], end = chunk.offsets[local + 1];
    const count = end - begin;
    if (count > this.contactCapacity) this.allocateContacts(2 * count);
    const points = this.points.geometry.attributes.position.array;
    const lines = this.arrows.geometry.attributes.position.array;
    const scale = this.forceScale / this.meta.time_step; // impulse → force → m
    for (let i = 0; i < count; ++i) {
      const row = chunk.contacts.subarray((begin + i) * 10, (begin + i + 1) * 10);
      points.set(row.subarray(0, 3), 3 * i);
      lines.set(row.subarray(0, 3), 6 * i);
      for (let k = 0; k < 3; ++k) lines[6 * i + 3 + k] = row[k] + scale * row[6 + k];
    }
    this.points.geometry.setDrawRange(0, count);
    this.arrows.geometry.setDrawRange(0, 2 * count);
    this.points.geometry.attributes.position.needsUpdate = true;
    this.arrows.geometry.attributes.position.needsUpdate = true;
    this.contactCount = count;
  }

  setVisible({ contacts, forces, frames, transparent }) {
    this.points.visible = contacts;
    this.arrows.visible = forces;
    for (const axes of this.frames) axes.visible = frames;
    for (const object of this.objects) {
      if (object.userData.static) continue;
      object.material.transparent = transparent;
      object.material.opacity = transparent ? 0.35 : 1.0;
      object.material.depthWrite = !transparent;
    }
    this.render();
  }

  // Where geometry g's origin is drawn, in CSS pixels of the canvas.
  screenPosition(g) {
    const p = new THREE.Vector3().setFromMatrixPosition(this.objects[g].matrix).project(this.camera);
    const canvas = this.renderer.domElement;
    return { x: ((p.x + 1) / 2) * canvas.clientWidth, y: ((1 - p.y) / 2) * canvas.clientHeight };
  }

  render() {
    this.renderer.render(this.scene, this.camera);
  }
}
