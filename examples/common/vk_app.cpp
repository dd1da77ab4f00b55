// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vk_app.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

namespace ef::examples {

namespace {

constexpr const char *kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool validation_requested() {
  const char *v = g_getenv("EF_VK_VALIDATION");
  return v && std::strcmp(v, "0") != 0;
}

bool layer_present(const char *name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (const auto &l : layers)
    if (std::strcmp(l.layerName, name) == 0)
      return true;
  return false;
}

std::vector<VkExtensionProperties> device_extensions(VkPhysicalDevice physical) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> list(n);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, list.data());
  return list;
}

bool has_extension(const std::vector<VkExtensionProperties> &list, const char *name) {
  for (const auto &e : list)
    if (std::strcmp(e.extensionName, name) == 0)
      return true;
  return false;
}

}  // namespace

VkBool32 VKAPI_PTR VkApp::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                     VkDebugUtilsMessageTypeFlagsEXT,
                                     const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
    static_cast<VkApp *>(user)->messages_.fetch_add(1);
    std::fprintf(stderr, "vulkan validation: %s\n", data->pMessage);
  }
  return VK_FALSE;
}

std::unique_ptr<VkApp> VkApp::create(std::string *why) {
  std::unique_ptr<VkApp> app(new VkApp());
  g_mutex_init(&app->queue_lock_);

  VkApplicationInfo info{};
  info.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  info.pApplicationName = "ef-example";
  info.apiVersion = VK_API_VERSION_1_2;  // timeline semaphores in core
  std::vector<const char *> layers, extensions;
  const bool validate = validation_requested() && layer_present(kValidationLayer);
  if (validation_requested() && !validate)
    std::fprintf(stderr, "warning: EF_VK_VALIDATION set but %s is not installed\n",
                 kValidationLayer);
  if (validate) {
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  VkDebugUtilsMessengerCreateInfoEXT messenger{};
  messenger.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger.pfnUserCallback = on_message;
  messenger.pUserData = app.get();
  VkInstanceCreateInfo ici{};
  ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ici.pNext = validate ? &messenger : nullptr;  // counts instance creation too
  ici.pApplicationInfo = &info;
  ici.enabledLayerCount = uint32_t(layers.size());
  ici.ppEnabledLayerNames = layers.data();
  ici.enabledExtensionCount = uint32_t(extensions.size());
  ici.ppEnabledExtensionNames = extensions.data();
  if (VkResult r = vkCreateInstance(&ici, nullptr, &app->instance_); r != VK_SUCCESS) {
    *why = "vkCreateInstance failed (" + std::to_string(int(r)) + "): no Vulkan driver";
    return nullptr;
  }
  if (validate) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(app->instance_, "vkCreateDebugUtilsMessengerEXT"));
    if (create)
      create(app->instance_, &messenger, nullptr, &app->messenger_);
  }

  uint32_t n = 0;
  vkEnumeratePhysicalDevices(app->instance_, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  vkEnumeratePhysicalDevices(app->instance_, &n, devices.data());
  for (VkPhysicalDevice d : devices) {
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d, &nf, nullptr);
    std::vector<VkQueueFamilyProperties> families(nf);
    vkGetPhysicalDeviceQueueFamilyProperties(d, &nf, families.data());
    for (uint32_t f = 0; f < nf && !app->physical_; ++f)
      if (families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        app->physical_ = d;
        app->family_ = f;
      }
    if (app->physical_)
      break;
  }
  if (!app->physical_) {
    *why = devices.empty() ? "no Vulkan device is present" : "no Vulkan device has a compute queue";
    return nullptr;
  }

  VkPhysicalDeviceIDProperties id{};
  id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &id;
  vkGetPhysicalDeviceProperties2(app->physical_, &props);
  std::memcpy(app->uuid_, id.deviceUUID, sizeof app->uuid_);
  app->name_ = props.properties.deviceName;

  // What the bridge imports with: it looks at what the shared device enabled,
  // so a device without these gets frames by copy instead.
  const auto available = device_extensions(app->physical_);
  std::vector<const char *> wanted;
  for (const char *e :
       {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME,
        VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME, VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME})
    if (has_extension(available, e))
      wanted.push_back(e);
  app->has_foreign_ = has_extension(available, VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{};
  qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  qci.queueFamilyIndex = app->family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features v12{};
  v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  v12.timelineSemaphore = VK_TRUE;
  VkDeviceCreateInfo dci{};
  dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  dci.pNext = &v12;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = uint32_t(wanted.size());
  dci.ppEnabledExtensionNames = wanted.data();
  if (VkResult r = vkCreateDevice(app->physical_, &dci, nullptr, &app->device_); r != VK_SUCCESS) {
    *why = "vkCreateDevice failed (" + std::to_string(int(r)) + ")";
    return nullptr;
  }
  vkGetDeviceQueue(app->device_, app->family_, 0, &app->queue_);

  VkCommandPoolCreateInfo pci{};
  pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = app->family_;
  vkCreateCommandPool(app->device_, &pci, nullptr, &app->pool_);
  return app;
}

VkApp::~VkApp() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    if (pool_)
      vkDestroyCommandPool(device_, pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy)
      destroy(instance_, messenger_, nullptr);
  }
  if (instance_)
    vkDestroyInstance(instance_, nullptr);
  g_mutex_clear(&queue_lock_);
}

GstEfVulkanDevice VkApp::shared() {
  GstEfVulkanDevice d{};
  d.instance = instance_;
  d.physical_device = physical_;
  d.device = device_;
  d.queue_family = family_;
  d.queue_index = 0;
  std::memcpy(d.device_uuid, uuid_, sizeof d.device_uuid);
  d.queue_lock = &queue_lock_;
  return d;
}

GstBusSyncReply VkApp::on_bus(GstBus *, GstMessage *message, gpointer user) {
  const gchar *type = nullptr;
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type(message, &type) &&
      std::strcmp(type, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE) == 0) {
    GstEfVulkanDevice device = static_cast<VkApp *>(user)->shared();
    GstContext *context = gst_ef_vulkan_device_context_new(&device);
    gst_element_set_context(GST_ELEMENT(GST_MESSAGE_SRC(message)), context);
    gst_context_unref(context);
  }
  return GST_BUS_PASS;
}

void VkApp::share_with(GstElement *pipeline) {
  GstBus *bus = gst_element_get_bus(pipeline);
  gst_bus_set_sync_handler(bus, on_bus, this, nullptr);
  gst_object_unref(bus);
}

VkResult VkApp::submit(VkCommandBuffer cmd, VkSemaphore timeline, uint64_t value) {
  VkTimelineSemaphoreSubmitInfo values{};
  values.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  values.signalSemaphoreValueCount = 1;
  values.pSignalSemaphoreValues = &value;
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.pNext = &values;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &timeline;
  // The bridge submits to this queue from the streaming thread.
  g_mutex_lock(&queue_lock_);
  VkResult r = vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE);
  g_mutex_unlock(&queue_lock_);
  return r;
}

VkCommandBuffer VkApp::allocate_commands() {
  VkCommandBufferAllocateInfo cai{};
  cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cai.commandPool = pool_;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  vkAllocateCommandBuffers(device_, &cai, &cmd);
  return cmd;
}

VkSemaphore VkApp::create_timeline() {
  VkSemaphoreTypeCreateInfo type{};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo sci{};
  sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  sci.pNext = &type;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  vkCreateSemaphore(device_, &sci, nullptr, &semaphore);
  return semaphore;
}

VkResult VkApp::wait(VkSemaphore timeline, uint64_t value, uint64_t timeout_ns) {
  VkSemaphoreWaitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &timeline;
  info.pValues = &value;
  return vkWaitSemaphores(device_, &info, timeout_ns);
}

uint32_t VkApp::memory_type(uint32_t bits, VkMemoryPropertyFlags flags) const {
  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & flags) == flags)
      return i;
  return UINT32_MAX;
}

}  // namespace ef::examples
